import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { compileSources } from './support/compiled.js';
import { startDaemonProcess, type DaemonProcess } from './support/daemon-process.js';
import { HAS_REDIS, startRedis, type RedisProcess } from './support/redis-server.js';

const LEASE_MS = 1_500;
/** The ACP fixture agent: `shell now` asks permission to run a command, and runs it only once allowed. */
const ACP_FIXTURE = `node ${join(__dirname, 'fixtures', 'acp-fixture-agent.mjs')}`;
const TOKEN = 'cluster-secret';
const json = { 'content-type': 'application/json' };

/** Every request carries the bearer token: forwarding must pass it to the owner. */
const call = (url: string, init: RequestInit = {}) =>
  fetch(url, { ...init, headers: { authorization: `Bearer ${TOKEN}`, ...(init.headers as Record<string, string>) } });

interface Node {
  id: string;
  daemon: DaemonProcess;
  url: string;
}

/** Polls `probe` every 50 ms until it returns a value, for at most `ms`. */
async function eventually<T>(probe: () => Promise<T | undefined>, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A web UI the nodes let in (TURNS_ALLOW_ORIGINS). */
const UI_ORIGIN = 'http://ui.example';

/**
 * Three daemons (Express, Fastify, Express) on one real redis-server and one
 * data dir, each a child process as operators run it.
 */
(HAS_REDIS ? describe : describe.skip)('cluster mode (redis-server + 3 daemons)', () => {
  jest.setTimeout(60_000);
  let dist: string;
  let dataDir: string;
  let redis: RedisProcess;
  let admin: Redis;
  let a: Node, b: Node, c: Node;

  async function startNode(id: string, adapter: 'express' | 'fastify', env: Record<string, string> = {}): Promise<Node> {
    const daemon = await startDaemonProcess(join(dist, 'daemon', 'bin.js'), {
      ...env,
      TURNS_DATA_DIR: dataDir,
      TURNS_WORKSPACES: dataDir,
      TURNS_HTTP_ADAPTER: adapter,
      TURNS_ECHO_DELAY_MS: '300',
      TURNS_REDIS_URL: redis.url,
      TURNS_NODE_ID: id,
      TURNS_LEASE_MS: String(LEASE_MS),
      TURNS_TOKEN: TOKEN,
      TURNS_FORWARD_TIMEOUT_MS: '1000',
      TURNS_ALLOW_ORIGINS: UI_ORIGIN,
    });
    return { id, daemon, url: daemon.url };
  }

  beforeAll(async () => {
    dist = compileSources('cluster');
    dataDir = mkdtempSync(join(tmpdir(), 'turns-cluster-'));
    redis = await startRedis();
    admin = new Redis(redis.url, { retryStrategy: () => 200 });
    admin.on('error', () => undefined);
    [a, b, c] = await Promise.all([startNode('node-a', 'express'), startNode('node-b', 'fastify'), startNode('node-c', 'express')]);
  });

  afterAll(async () => {
    admin?.disconnect();
    for (const node of [a, b, c]) {
      if (node && node.daemon.child.exitCode === null && node.daemon.child.signalCode === null) {
        node.daemon.child.kill('SIGCONT');
        node.daemon.child.kill('SIGKILL');
        await node.daemon.exited;
      }
    }
    await redis?.kill();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function createSession(node: Node): Promise<{ sessionId: string; clientId: string }> {
    const res = await call(`${node.url}/session`, { method: 'POST', headers: json, body: JSON.stringify({ sessionScope: 'thread' }) });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-turns-node')).toBe(node.id);
    return (await res.json()) as { sessionId: string; clientId: string };
  }

  async function prompt(node: Node, sessionId: string, text: string, clientId?: string): Promise<Response> {
    return call(`${node.url}/session/${sessionId}/prompt`, {
      method: 'POST',
      headers: { ...json, ...(clientId && { 'x-qwen-client-id': clientId }) },
      body: JSON.stringify({ prompt: [{ type: 'text', text }] }),
    });
  }

  async function completedPrompt(node: Node, sessionId: string, text: string): Promise<string> {
    const { promptId } = (await (await prompt(node, sessionId, text)).json()) as { promptId: string };
    const res = await call(`${node.url}/session/${sessionId}/turns/${promptId}?waitMs=5000`);
    expect(((await res.json()) as { state: string }).state).toBe('completed');
    return promptId;
  }

  it("forwards the turn list to the session's owner: the same page through any node", async () => {
    const { sessionId } = await createSession(a);
    const first = await completedPrompt(a, sessionId, 'one');
    const second = await completedPrompt(b, sessionId, 'two');
    const path = `/session/${sessionId}/turns?limit=1`;
    const owner = await call(`${a.url}${path}`);
    const page = (await owner.json()) as { turns: Array<{ promptId: string }>; nextPageToken: string };
    expect(page.turns.map((turn) => turn.promptId)).toEqual([second]);
    const through = await call(`${c.url}${path}`);
    expect(through.headers.get('x-turns-node')).toBe('node-a');
    expect(through.headers.get('etag')).toBe(owner.headers.get('etag'));
    expect(await through.json()).toEqual(page);
    const next = await call(`${b.url}/session/${sessionId}/turns?limit=1&pageToken=${page.nextPageToken}`);
    expect(((await next.json()) as { turns: Array<{ promptId: string }> }).turns.map((turn) => turn.promptId)).toEqual([first]);
  });

  it('judges Origin and Host at the node the client reached: a forwarded request is not refused again by its owner', async () => {
    const { sessionId, clientId } = await createSession(a);
    const path = `/session/${sessionId}/turns/current`;
    // An allowed web UI, through B: answered by A, with B's CORS headers, once.
    const fromUi = await call(`${b.url}${path}`, { headers: { origin: UI_ORIGIN, 'x-qwen-client-id': clientId } });
    expect(fromUi.status).toBe(200);
    expect(fromUi.headers.get('x-turns-node')).toBe('node-a');
    expect(fromUi.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
    // A page of B itself (its Swagger UI): B's own origin, which A, under another Host, would not call its own.
    const fromB = await call(`${b.url}${path}`, { headers: { origin: b.url, 'x-qwen-client-id': clientId } });
    expect(fromB.status).toBe(200);
    expect(fromB.headers.get('x-turns-via')).toBe('node-b');
    // A foreign page is refused where it knocked: nothing is forwarded.
    const evil = await call(`${b.url}${path}`, { headers: { origin: 'http://evil.example', 'x-qwen-client-id': clientId } });
    expect(evil.status).toBe(403);
    expect(await evil.json()).toMatchObject({ code: 'origin_forbidden' });
    expect(evil.headers.get('x-turns-via')).toBeNull();
  });

  it('any node serves any session: prompt through B, polls and waits through C, events through B — all answered by the owner A', async () => {
    const { sessionId, clientId } = await createSession(a);
    expect(await admin.hget(`turns:lease:${sessionId}`, 'node')).toBe('node-a');

    // Events of A's session, streamed through B.
    const events = new AbortController();
    const stream = await call(`${b.url}/session/${sessionId}/events`, { signal: events.signal });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('x-turns-node')).toBe('node-a');
    expect(stream.headers.get('content-type')).toMatch(/text\/event-stream/);

    const admitted = await prompt(b, sessionId, 'through b', clientId);
    expect(admitted.status).toBe(202);
    expect(admitted.headers.get('x-turns-node')).toBe('node-a');
    const { promptId } = (await admitted.json()) as { promptId: string };

    // A held wait through C answers when A's prompt completes.
    const waited = await call(`${c.url}/session/${sessionId}/turns/${promptId}?waitMs=10000`);
    expect(waited.headers.get('x-turns-node')).toBe('node-a');
    expect(await waited.json()).toMatchObject({ state: 'completed', resultText: 'echo: through b', promptId });

    const current = await call(`${c.url}/session/${sessionId}/turns/current`);
    expect(current.headers.get('x-turns-node')).toBe('node-a');
    expect(await current.json()).toMatchObject({ promptId, state: 'completed' });

    // ETag revalidation passes through: 304 from the owner.
    const etag = current.headers.get('etag')!;
    const again = await call(`${c.url}/session/${sessionId}/turns/current`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);

    // The client id travels: a foreign id is refused by the owner, as it would be directly.
    const foreign = await prompt(c, sessionId, 'x', 'client_not-registered');
    expect(foreign.status).toBe(400);
    expect(await foreign.json()).toMatchObject({ code: 'invalid_client_id', sessionId });

    const reader = stream.body!.getReader();
    let seen = '';
    while (!seen.includes('event: turn_complete')) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += Buffer.from(value).toString('utf8');
    }
    events.abort();
    expect(seen).toContain('event: session_update');
    expect(seen).toContain(`"promptId":"${promptId}"`);
    expect(seen).toContain('event: turn_complete');
  });

  it('forwards the routes of the qwen serve clients (docs/qwen-serve.md) to the owner like the others', async () => {
    const { sessionId, clientId } = await createSession(a);
    await completedPrompt(a, sessionId, 'one');
    const id = { 'x-qwen-client-id': clientId };
    const answers = [
      await call(`${b.url}/session/${sessionId}/status`, { headers: id }),
      await call(`${c.url}/session/${sessionId}/heartbeat`, { method: 'POST', headers: { ...json, ...id }, body: '{}' }),
      await call(`${b.url}/session/${sessionId}/rewind/snapshots`, { headers: id }),
      await call(`${c.url}/session/${sessionId}/resume`, { method: 'POST' }),
      await call(`${b.url}/session/${sessionId}/branch`, { method: 'POST', headers: { ...json, ...id }, body: '{}' }),
    ];
    expect(answers.map((res) => [res.status, res.headers.get('x-turns-node')])).toEqual([
      [200, 'node-a'],
      [200, 'node-a'],
      [200, 'node-a'],
      [200, 'node-a'],
      [201, 'node-a'],
    ]);
    const [status, beat, snapshots, resumed, branched] = (await Promise.all(answers.map((res) => res.json()))) as Array<
      Record<string, unknown>
    >;
    expect(status).toMatchObject({ sessionId, clientCount: 1 });
    expect(beat).toMatchObject({ sessionId, clientId });
    expect(snapshots).toMatchObject({ snapshots: [{ promptId: `${sessionId}########0`, turnIndex: 0 }] });
    expect(resumed).toMatchObject({ sessionId, attached: true });
    // The branch is a session of the owner, leased to it.
    expect(await admin.hget(`turns:lease:${branched!.sessionId as string}`, 'node')).toBe('node-a');
    const detached = await call(`${c.url}/session/${sessionId}/detach`, { method: 'POST', headers: id });
    expect([detached.status, detached.headers.get('x-turns-node')]).toEqual([204, 'node-a']);
  });

  it('forwards the answers to requests for approval (docs/permissions.md) to the owner, the unscoped route by the session its id names', async () => {
    const { sessionId, clientId } = await createSession(a);
    const requestId = `${sessionId}.0123456789abcdef`;
    const body = JSON.stringify({ outcome: { outcome: 'selected', optionId: 'proceed_once' } });
    const init = { method: 'POST', headers: { ...json, 'x-qwen-client-id': clientId }, body };
    const answers = [
      await call(`${b.url}/session/${sessionId}/permission/${requestId}`, init),
      await call(`${c.url}/permission/${requestId}`, init),
    ];
    // The owner answers (no request of that id is pending there): a node that does not own the session only forwards.
    expect(answers.map((res) => [res.status, res.headers.get('x-turns-node')])).toEqual([
      [404, 'node-a'],
      [404, 'node-a'],
    ]);
    for (const res of answers) expect(await res.json()).toMatchObject({ code: 'permission_not_found', requestId });
  });

  it('an answer through a node that does not own the session reaches the request held on its owner, on both routes', async () => {
    // A fourth node whose agent asks approval (the others run the echo agent, which never does).
    const d = await startNode('node-d', 'fastify', { TURNS_AGENT: 'acp', TURNS_AGENT_COMMAND: ACP_FIXTURE });
    try {
      const { sessionId, clientId } = await createSession(d);
      const routes: Array<[Node, (requestId: string) => string]> = [
        [b, (requestId) => `/session/${sessionId}/permission/${requestId}`],
        [c, (requestId) => `/permission/${requestId}`],
      ];
      for (const [via, route] of routes) {
        const { promptId } = (await (await prompt(d, sessionId, 'shell now', clientId)).json()) as { promptId: string };
        const requestId = await eventually(async () => {
          const turn = (await (await call(`${d.url}/session/${sessionId}/turns/${promptId}`)).json()) as {
            pendingInteractions?: Array<{ requestId: string }>;
          };
          return turn.pendingInteractions?.[0]?.requestId;
        }, 20_000);
        const answered = await call(`${via.url}${route(requestId)}`, {
          method: 'POST',
          headers: { ...json, 'x-qwen-client-id': clientId },
          body: JSON.stringify({ outcome: { outcome: 'selected', optionId: 'proceed_once' } }),
        });
        expect([answered.status, answered.headers.get('x-turns-node'), await answered.json()]).toEqual([200, 'node-d', {}]);
        const turn = await eventually(async () => {
          const res = (await (await call(`${d.url}/session/${sessionId}/turns/${promptId}`)).json()) as { state: string };
          return res.state === 'running' ? undefined : res;
        }, 20_000);
        expect(turn).toMatchObject({ state: 'completed', resultText: 'ran (proceed_once)' });
      }
    } finally {
      d.daemon.child.kill('SIGKILL');
      await d.daemon.exited;
    }
  });

  /**
   * Owner lookups (`HMGET` sent by a node) counted on MONITOR, not commandstats: a lease renewal's script runs an
   * `HMGET` inside Redis (source `lua`), which is not a lookup, and a renewal falling among the requests made the
   * count racy (8 and 7 "lookups" in two runs). `lookups()` counts every command sent before it was called.
   */
  async function watchLookups(): Promise<{ lookups: () => Promise<number>; monitor: { disconnect(): void } }> {
    const monitor = await admin.monitor();
    let sent = 0;
    let marks = 0;
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      if (source !== 'lua' && args[0]?.toLowerCase() === 'hmget') sent += 1;
      if (args[0]?.toLowerCase() === 'echo' && args[1] === 'lookups-mark') marks += 1;
    });
    // MONITOR reports commands in order: once this mark is seen, every command before it has been counted.
    const lookups = async () => {
      const seen = marks;
      await admin.echo('lookups-mark');
      await eventually(() => Promise.resolve(marks > seen ? true : undefined));
      return sent;
    };
    return { lookups, monitor };
  }

  it('without the token nothing is forwarded or looked up: every node answers 401 itself', async () => {
    const { sessionId } = await createSession(a);
    const { lookups, monitor } = await watchLookups();
    try {
      for (const node of [a, b, c]) {
        for (const path of [`/session/${sessionId}/turns/current`, '/cluster/nodes']) {
          const res = await fetch(`${node.url}${path}`, { headers: { authorization: 'Bearer wrong' } });
          expect(res.status).toBe(401);
          expect(res.headers.get('x-turns-node')).toBe(node.id);
          expect(res.headers.get('x-turns-via')).toBeNull();
        }
      }
      expect(await lookups()).toBe(0);
    } finally {
      monitor.disconnect();
    }
  });

  it('the peer route a claim asks a previous owner on: behind the token, answered by the node asked, its body validated, not in the API document', async () => {
    const { sessionId } = await createSession(a);
    const release = (node: Node, body: string, headers: Record<string, string> = {}) =>
      call(`${node.url}/cluster/sessions/${sessionId}/release`, { method: 'POST', headers: { ...json, ...headers }, body });
    expect((await release(b, '{"fence":1}', { authorization: 'Bearer wrong' })).status).toBe(401);
    const invalid = await release(b, '{"fence":"x"}');
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toMatchObject({ code: 'invalid_request' });
    // B does not hold it, and it is never forwarded to A, which does.
    const elsewhere = await release(b, '{"fence":99}');
    expect([elsewhere.status, elsewhere.headers.get('x-turns-node'), await elsewhere.json()]).toEqual([200, 'node-b', { released: false }]);
    // A fence no higher than the owner's own lets nothing go.
    expect(await (await release(a, '{"fence":1}')).json()).toEqual({ released: false });
    expect((await call(`${c.url}/session/${sessionId}/turns/current`)).headers.get('x-turns-node')).toBe('node-a');
    const document = (await (await call(`${a.url}/docs-json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(document.paths).filter((path) => path.startsWith('/cluster/'))).toEqual(['/cluster/nodes']);
  });

  it('a request the owner serves costs no Redis call; a forwarded one costs a cached lookup', async () => {
    const { sessionId } = await createSession(a);
    const { lookups, monitor } = await watchLookups();
    try {
      for (let i = 0; i < 20; i++) expect((await call(`${a.url}/session/${sessionId}/turns/current`)).status).toBe(200);
      expect(await lookups()).toBe(0);
      for (let i = 0; i < 20; i++) expect((await call(`${b.url}/session/${sessionId}/turns/current`)).status).toBe(200);
      expect(await lookups()).toBeGreaterThanOrEqual(1);
      expect(await lookups()).toBeLessThan(20);
    } finally {
      monitor.disconnect();
    }
  });

  it('closing releases the lease; a session nobody owns is 404 on every node', async () => {
    const { sessionId } = await createSession(a);
    // Creating it again by id elsewhere cannot make a second owner.
    const twice = await call(`${b.url}/session`, { method: 'POST', headers: json, body: JSON.stringify({ sessionId }) });
    expect(twice.status).toBe(409);
    expect(await twice.json()).toMatchObject({ code: 'session_on_other_node', sessionId, node: 'node-a' });
    expect(await admin.hget(`turns:lease:${sessionId}`, 'node')).toBe('node-a');
    const closed = await call(`${c.url}/session/${sessionId}`, { method: 'DELETE' });
    expect(closed.status).toBe(204);
    expect(closed.headers.get('x-turns-node')).toBe('node-a');
    expect(await admin.exists(`turns:lease:${sessionId}`)).toBe(0);
    for (const node of [a, b, c]) {
      const res = await call(`${node.url}/session/${sessionId}/turns/current`);
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ code: 'session_not_found', sessionId });
    }
  });

  it('a forwarded request is never forwarded again: a directory that points elsewhere gets one hop, then 503', async () => {
    // A lease that names node-b but carries C's address: A forwards to C, which must not forward on.
    const ghost = '0f0f0f0f-0000-4000-8000-000000000001';
    await admin.hset(`turns:lease:${ghost}`, 'node', 'node-b', 'url', c.url, 'fence', '999999');
    await admin.pexpire(`turns:lease:${ghost}`, 60_000);
    const res = await call(`${a.url}/session/${ghost}/turns/current`);
    expect(res.status).toBe(503);
    expect(res.headers.get('x-turns-node')).toBe('node-c');
    expect(res.headers.get('retry-after')).toBe('1');
    expect(await res.json()).toMatchObject({ code: 'cluster_unavailable', sessionId: ghost, node: 'node-b' });
    await admin.del(`turns:lease:${ghost}`);

    // A request already marked as forwarded, for a session A owns, reaching B: B answers, it does not forward.
    const { sessionId } = await createSession(a);
    const marked = await call(`${b.url}/session/${sessionId}/turns/current`, { headers: { 'x-turns-forwarded-by': 'node-c' } });
    expect(marked.status).toBe(503);
    expect(marked.headers.get('x-turns-node')).toBe('node-b');
  });

  it('two concurrent loads of one persisted session on B and C make exactly one owner; the other forwards', async () => {
    const { sessionId } = await createSession(a);
    const promptId = await completedPrompt(a, sessionId, 'persisted');
    expect((await call(`${a.url}/session/${sessionId}`, { method: 'DELETE' })).status).toBe(204);

    const [fromB, fromC] = await Promise.all([
      call(`${b.url}/session/${sessionId}/load`, { method: 'POST' }),
      call(`${c.url}/session/${sessionId}/load`, { method: 'POST' }),
    ]);
    expect([fromB.status, fromC.status]).toEqual([200, 200]);
    const owner = await admin.hget(`turns:lease:${sessionId}`, 'node');
    expect(['node-b', 'node-c']).toContain(owner);
    expect(fromB.headers.get('x-turns-node')).toBe(owner);
    expect(fromC.headers.get('x-turns-node')).toBe(owner);
    const [bodyB, bodyC] = (await Promise.all([fromB.json(), fromC.json()])) as Array<{ sessionId: string; clientId: string }>;
    expect(bodyB.sessionId).toBe(sessionId);
    expect(bodyC.sessionId).toBe(sessionId);
    expect(bodyB.clientId).not.toBe(bodyC.clientId);

    const turn = await call(`${a.url}/session/${sessionId}/turns/${promptId}`);
    expect(turn.headers.get('x-turns-node')).toBe(owner);
    expect(await turn.json()).toMatchObject({ state: 'completed', resultText: 'echo: persisted' });
  });

  it('fencing: an owner paused past its lease (SIGSTOP) stops serving and writing the session another node loaded', async () => {
    const { sessionId } = await createSession(a);
    await completedPrompt(a, sessionId, 'before the pause');
    // A prompt running on A when it freezes.
    const { promptId: frozen } = (await (await prompt(a, sessionId, 'frozen')).json()) as { promptId: string };
    a.daemon.child.kill('SIGSTOP');
    try {
      // A frozen owner does not hang the nodes that forward to it.
      const stuck = await call(`${c.url}/session/${sessionId}/turns/current`);
      expect(stuck.status).toBe(503);
      expect(stuck.headers.get('retry-after')).toBe('1');
      expect(await stuck.json()).toMatchObject({ code: 'cluster_unavailable', sessionId, node: 'node-a' });
      await eventually(async () => ((await admin.exists(`turns:lease:${sessionId}`)) === 0 ? true : undefined), 10_000);
      // Its heartbeat went with it (written before each renewal, it never outlives the leases): the claim asks nobody.
      expect(await admin.exists('turns:node:node-a')).toBe(0);
      const started = Date.now();
      const loaded = await call(`${b.url}/session/${sessionId}/load`, { method: 'POST' });
      expect(loaded.status).toBe(200);
      expect(loaded.headers.get('x-turns-node')).toBe('node-b');
      // No wait for the frozen owner: a claim that waited it out would answer a lease later at the earliest.
      expect(Date.now() - started).toBeLessThan(LEASE_MS);
    } finally {
      a.daemon.child.kill('SIGCONT');
    }
    // The first request A gets after waking is served by the new owner: A re-checked its stale lease first.
    const viaA = await call(`${a.url}/session/${sessionId}/turns/current`);
    expect(viaA.headers.get('x-turns-node')).toBe('node-b');
    expect(await admin.hget(`turns:lease:${sessionId}`, 'node')).toBe('node-b');

    // A wrote nothing more: the frozen prompt's result never reaches the transcript B now owns.
    await new Promise((resolve) => setTimeout(resolve, 600));
    const chats = readdirSync(dataDir, { recursive: true })
      .map(String)
      .filter((p) => p.endsWith(`${sessionId}.jsonl`));
    expect(chats).toHaveLength(1);
    const records = readFileSync(join(dataDir, chats[0]!), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; subtype?: string; promptId?: string });
    expect(records.filter((r) => r.subtype === 'turn_result' && r.promptId === frozen)).toEqual([]);
    // Nor to the ledger beside it: the only terminal the frozen prompt may have is B's reconciliation at load.
    const ledger = readFileSync(join(dataDir, chats[0]!.replace(/\.jsonl$/, '.ledger.jsonl')), 'utf8');
    const terminals = ledger
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { promptId: string; terminal?: string })
      .filter((r) => r.promptId === frozen && r.terminal !== undefined);
    expect(terminals.every((r) => r.terminal === 'interrupted')).toBe(true);
    expect(terminals.length).toBeLessThanOrEqual(1);
    // B serves the session and runs new prompts on it.
    const after = await completedPrompt(c, sessionId, 'after the pause');
    expect((await call(`${a.url}/session/${sessionId}/turns/${after}`)).headers.get('x-turns-node')).toBe('node-b');
  });

  it('a load looks the owner up afresh: a lease lost while another node had the owner cached is claimed, not forwarded', async () => {
    const { sessionId } = await createSession(a);
    // C caches A as the owner (for up to a second) ...
    expect((await call(`${c.url}/session/${sessionId}/turns/current`)).headers.get('x-turns-node')).toBe('node-a');
    a.daemon.child.kill('SIGSTOP');
    try {
      // ... then A freezes and its lease is lost (an eviction): a load through C must not be sent to the frozen A. (Its
      // heartbeat is still there, so C asks it to let go; frozen, it does not answer, and C waits out its lease.)
      await admin.del(`turns:lease:${sessionId}`);
      const loaded = await call(`${c.url}/session/${sessionId}/load`, { method: 'POST' });
      expect(loaded.status).toBe(200);
      expect(loaded.headers.get('x-turns-node')).toBe('node-c');
    } finally {
      a.daemon.child.kill('SIGCONT');
    }
    await eventually(async () =>
      (await call(`${a.url}/session/${sessionId}/turns/current`)).headers.get('x-turns-node') === 'node-c' ? true : undefined,
    );
  });

  describe.each([
    ['DEL of its lease', (sessionId: string) => admin.del(`turns:lease:${sessionId}`)],
    ['FLUSHALL', () => admin.flushall()],
  ])('Redis loses an owner’s lease with every connection up (%s)', (_fault, lose) => {
    it('the load through another node has the old owner let go first: a request sent straight to it is the new owner’s', async () => {
      const { sessionId } = await createSession(a);
      await completedPrompt(a, sessionId, 'before the loss');
      // A renewal of A's landing between the loss and the claim re-creates A's lease (the load then goes to A): again.
      await eventually(async () => {
        await lose(sessionId);
        const res = await call(`${b.url}/session/${sessionId}/load`, { method: 'POST' });
        return res.status === 200 && res.headers.get('x-turns-node') === 'node-b' ? true : undefined;
      });
      // At once: before A's next renewal would have found B's lease.
      const viaA = await call(`${a.url}/session/${sessionId}/turns/current`);
      expect(viaA.status).toBe(200);
      expect(viaA.headers.get('x-turns-node')).toBe('node-b');
      expect(viaA.headers.get('x-turns-via')).toBe('node-a');
      const after = await completedPrompt(a, sessionId, 'after the loss');
      expect((await call(`${c.url}/session/${sessionId}/turns/${after}`)).headers.get('x-turns-node')).toBe('node-b');
    });
  });

  it('Redis down: sessions a node owns keep working, forwarding and claims answer 503, and all recovers when Redis returns', async () => {
    const { sessionId } = await createSession(b);
    const port = redis.port;
    await redis.kill();
    try {
      const local = await completedPrompt(b, sessionId, 'while redis is down');
      expect(local).toBeDefined();
      const forwarded = await call(`${c.url}/session/${sessionId}/turns/current`);
      expect(forwarded.status).toBe(503);
      expect(forwarded.headers.get('retry-after')).toBe('1');
      expect(await forwarded.json()).toMatchObject({ code: 'cluster_unavailable', sessionId });
      const created = await call(`${c.url}/session`, { method: 'POST', headers: json, body: '{"sessionScope":"thread"}' });
      expect(created.status).toBe(503);
      expect(await created.json()).toMatchObject({ code: 'cluster_unavailable' });
    } finally {
      // Redis comes back empty (no persistence): the owners re-create their leases on their next renewal.
      redis = await startRedis(port);
    }
    const recovered = await eventually(async () => {
      const res = await call(`${c.url}/session/${sessionId}/turns/current`);
      return res.status === 200 ? res : undefined;
    });
    expect(recovered.headers.get('x-turns-node')).toBe('node-b');
    await createSession(c);
  });

  it('failover: kill -9 the owner; after its lease expires a load on another node answers from the transcript', async () => {
    const { sessionId } = await createSession(a);
    const promptId = await completedPrompt(a, sessionId, 'survives the owner');
    // Its prompt ledger (beside the transcript, on the shared data dir) has the terminal before the owner dies.
    await eventually(async () => {
      const ledger = readdirSync(dataDir, { recursive: true }).find((name) => String(name).endsWith(`${sessionId}.ledger.jsonl`));
      return ledger && readFileSync(join(dataDir, String(ledger)), 'utf8').includes('"terminal":"completed"') ? true : undefined;
    });
    a.daemon.child.kill('SIGKILL');
    await a.daemon.exited;

    const meanwhile = await call(`${b.url}/session/${sessionId}/turns/current`);
    expect([503, 404]).toContain(meanwhile.status);
    if (meanwhile.status === 503) expect(await meanwhile.json()).toMatchObject({ code: 'cluster_unavailable' });

    const loaded = await eventually(async () => {
      const res = await call(`${c.url}/session/${sessionId}/load`, { method: 'POST' });
      return res.status === 200 ? res : undefined;
    });
    expect(loaded.headers.get('x-turns-node')).toBe('node-c');
    // The ledger moved with the session: the new owner's load answers its terminals.
    expect(((await loaded.json()) as { promptTerminals?: unknown[] }).promptTerminals).toEqual([
      { v: 1, promptId, terminal: 'completed', stopReason: 'end_turn', at: expect.any(Number) },
    ]);
    const turn = await call(`${b.url}/session/${sessionId}/turns/${promptId}`);
    expect(turn.headers.get('x-turns-node')).toBe('node-c');
    expect(await turn.json()).toMatchObject({ state: 'completed', resultText: 'echo: survives the owner' });
  });

  it('GET /cluster/nodes lists the live nodes with their session counts; /capabilities says cluster', async () => {
    const listed = await eventually(async () => {
      const res = await call(`${b.url}/cluster/nodes`);
      const body = (await res.json()) as { nodeId: string; nodes: Array<{ nodeId: string; sessions: number; self: boolean }> };
      return body.nodes.map((n) => n.nodeId).join() === 'node-b,node-c' ? body : undefined;
    });
    expect(listed.nodeId).toBe('node-b');
    expect(listed.nodes.find((n) => n.self)?.nodeId).toBe('node-b');
    expect(listed.nodes.every((n) => n.sessions >= 1)).toBe(true);
    const capabilities = (await (await call(`${c.url}/capabilities`)).json()) as { features: string[]; cluster: unknown };
    expect(capabilities.features).toContain('cluster');
    expect(capabilities.cluster).toEqual({ nodeId: 'node-c', leaseMs: LEASE_MS });
  });
});

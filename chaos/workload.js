import { connect } from 'node:net';
import { TurnsApiError, TurnsClient } from 'nest-turn-status/client';
import { TOKEN } from './cluster.js';
import { sleep } from './processes.js';
import { recordingFetch, sha256 } from './recording-fetch.js';
import { sseReader } from './sse-reader.js';

/** A session's prompts stay well inside the bounded windows (64 overlay terminals), so a 404 is never "expected". */
const MAX_PROMPTS_PER_SESSION = 40;
const MAX_SESSIONS = 12;

/** Creates with one key sent to two nodes, at most this many a run. */
const MAX_CREATE_PAIRS = 8;

const notFound = (error) => error instanceof TurnsApiError && error.status === 404 && error.code === 'session_not_found';

/**
 * What the clients share: the sessions made so far and the prompts admitted,
 * plus a TurnsClient per client name whose every exchange is recorded.
 */
export class Workload {
  constructor({ front, nodes = [], receiver, history, random, stopAt, leaseMs = 3_000 }) {
    Object.assign(this, { front, nodes, receiver, history, random, stopAt, leaseMs });
    this.sessions = [];
    this.admitted = [];
    /** Keyed admissions, to send again after a fault: `{ name, session, text, key, promptId, at }`. */
    this.keyed = [];
    this.retries = [];
    this.clients = new Map();
  }

  client(name, options = {}) {
    const key = `${name}${options.final ? '/final' : ''}`;
    if (!this.clients.has(key))
      this.clients.set(
        key,
        new TurnsClient({
          baseUrl: this.front,
          token: TOKEN,
          fetch: recordingFetch(this.history, name, options),
          requestTimeoutMs: 8_000,
          retries: options.final ? 5 : 2,
        }),
      );
    return this.clients.get(key);
  }

  pickSession(random) {
    return this.sessions.length === 0 ? undefined : random.pick(this.sessions);
  }

  /** `POST /session/:id/load` through the front: the failover path after the owner died. */
  async load(name, sessionId, options) {
    await this.client(name, options)
      .loadSession(sessionId)
      .catch((error) => {
        // A session created just before its node died, with nothing admitted, left no transcript: nothing to load, ever.
        const lost = notFound(error) && !this.admitted.some((prompt) => prompt.sessionId === sessionId);
        if (lost) this.sessions = this.sessions.filter((session) => session.sessionId !== sessionId);
      });
  }

  /** Runs `fn`; a `session_not_found` gets the session loaded and `fn` tried once more. */
  async withLoad(name, sessionId, fn, options) {
    try {
      return await fn();
    } catch (error) {
      if (!notFound(error)) throw error;
      await this.load(name, sessionId, options);
      return fn();
    }
  }

  async sessionFor(name, random) {
    const open = this.sessions.filter((s) => s.prompts < MAX_PROMPTS_PER_SESSION);
    if (this.sessions.length < MAX_SESSIONS && (open.length === 0 || random.chance(0.15))) {
      const created = await this.client(name).createSession({ sessionScope: 'thread' });
      const session = { sessionId: created.sessionId, prompts: 0 };
      this.sessions.push(session);
      if (this.receiver && random.chance(0.4)) await this.subscribe(name, session.sessionId).catch(() => undefined);
      return session;
    }
    return open.length === 0 ? undefined : random.pick(open);
  }

  async admit(name, session, text, key) {
    const client = this.client(name);
    const { promptId } = await this.withLoad(name, session.sessionId, () =>
      client.prompt(session.sessionId, text, { idempotencyKey: key }),
    );
    this.admitted.push({ sessionId: session.sessionId, promptId });
    this.keyed.push({ name, session, text, key, promptId, at: Date.now() });
    return promptId;
  }

  /** A per-session webhook subscription beside the operator's endpoint; the receiver's path names the session. */
  async subscribe(name, sessionId) {
    const send = recordingFetch(this.history, name);
    const url = `${this.receiver}/sub/${sessionId}`;
    await send(`${this.front}/session/${encodeURIComponent(sessionId)}/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url }),
      signal: AbortSignal.timeout(8_000),
    });
  }

  /**
   * After a node fault: the keys of prompts admitted on its sessions in the 3 s before (queued ones among them,
   * behind a burst) are sent again, same body, once another node can have claimed the session. A replay must
   * answer the same promptId; a new one is a key that did not survive the node.
   */
  afterFault(fault) {
    const owned = new Set(fault.owned ?? []);
    const recent = this.keyed.filter((k) => owned.has(k.session.sessionId) && k.at >= fault.t - 3_000 && k.at <= fault.t).slice(-4);
    for (const k of recent) {
      this.retries.push(sleep(this.leaseMs + 1_500).then(() => this.admit(k.name, k.session, k.text, k.key).catch(() => undefined)));
    }
  }

  /** Queued prompts removed, and running ones cancelled, on the session of a burst. */
  async disturb(name, session, promptIds, random) {
    const client = this.client(name);
    if (random.chance(0.3)) {
      const last = promptIds.at(-1);
      await this.withLoad(name, session.sessionId, () => client.removePending(session.sessionId, last)).catch(() => undefined);
    }
    if (random.chance(0.15)) await this.withLoad(name, session.sessionId, () => client.cancel(session.sessionId)).catch(() => undefined);
  }

  /** `POST /session` with one key sent to two nodes, one after the other (a client that retried elsewhere). */
  async creator(name) {
    const random = this.random.fork(name);
    if (this.nodes.length < 2) return;
    for (let i = 1; i <= MAX_CREATE_PAIRS && Date.now() < this.stopAt; i += 1) {
      await sleep(random.int(2_000, 6_000));
      const key = `${name}-create-${i}-${random.word(8)}`;
      const first = random.int(0, this.nodes.length - 1);
      const second = (first + random.int(1, this.nodes.length - 1)) % this.nodes.length;
      for (const index of [first, second]) {
        const client = new TurnsClient({
          baseUrl: this.nodes[index],
          token: TOKEN,
          fetch: recordingFetch(this.history, name, { via: `n${index + 1}` }),
          requestTimeoutMs: 8_000,
          retries: 0,
        });
        await client.createSession({ sessionScope: 'thread' }, { idempotencyKey: key }).catch(() => undefined);
      }
    }
  }

  /** Prompts with keys, now and then repeated (same body: a replay; another body: a 422), some waited for. */
  async prompter(name) {
    const random = this.random.fork(name);
    for (let i = 1; i <= 400 && Date.now() < this.stopAt; i += 1) {
      try {
        const session = await this.sessionFor(name, random);
        if (session) {
          // Now and then a burst: the prompts after the first wait queued behind it.
          const burst = random.chance(0.3) ? random.int(2, 3) : 1;
          const promptIds = [];
          for (let b = 0; b < burst; b += 1) {
            session.prompts += 1;
            const text = `${name} ${i}.${b} ${random.word()}`;
            const key = `${name}-${i}.${b}-${random.word(8)}`;
            promptIds.push(await this.admit(name, session, text, key));
            if (random.chance(0.15)) await this.admit(name, session, text, key);
            if (random.chance(0.05)) await this.admit(name, session, `${text} changed`, key).catch(() => undefined);
          }
          if (burst > 1) await this.disturb(name, session, promptIds, random);
          if (random.chance(0.4)) await this.client(name).waitForTurn(session.sessionId, promptIds[0], { timeoutMs: 15_000 });
        }
      } catch {
        // The history has the exchange; the client moves on.
      }
      await sleep(random.int(200, 1_500));
    }
  }

  /** Exact and `current` polls and list reads of what was admitted. */
  async poller(name) {
    const random = this.random.fork(name);
    const client = this.client(name);
    for (let i = 0; i < 2_000 && Date.now() < this.stopAt; i += 1) {
      const target =
        this.admitted.length === 0
          ? undefined
          : this.admitted[this.admitted.length - 1 - random.int(0, Math.min(20, this.admitted.length - 1))];
      const session = this.pickSession(random);
      try {
        const roll = random.int(0, 9);
        if (target && roll < 6) await this.withLoad(name, target.sessionId, () => client.getTurn(target.sessionId, target.promptId));
        else if (session && roll < 8) await this.withLoad(name, session.sessionId, () => client.getCurrent(session.sessionId));
        else if (session) await this.withLoad(name, session.sessionId, () => client.listTurns(session.sessionId, { limit: 20 }).next());
      } catch {
        // recorded
      }
      await sleep(random.int(300, 900));
    }
  }

  /** Long-polls (`waitForTurn`) on recent admissions. */
  async waiter(name) {
    const random = this.random.fork(name);
    const client = this.client(name);
    for (let i = 0; i < 1_000 && Date.now() < this.stopAt; i += 1) {
      const target =
        this.admitted.length === 0
          ? undefined
          : this.admitted[this.admitted.length - 1 - random.int(0, Math.min(5, this.admitted.length - 1))];
      if (target)
        await this.withLoad(name, target.sessionId, () =>
          client.waitForTurn(target.sessionId, target.promptId, { timeoutMs: 10_000 }),
        ).catch(() => undefined);
      await sleep(random.int(200, 800));
    }
  }

  /**
   * The `cut-body` fault: a prompt whose body stops half way (the socket destroyed),
   * then, now and then, the same key sent in full by the client's retry path.
   */
  async cutBody(name, random) {
    const session = this.pickSession(random);
    if (!session) return;
    const body = JSON.stringify({ prompt: [{ type: 'text', text: `${name} cut ${random.word()}` }] });
    const key = `${name}-cut-${random.word(8)}`;
    const path = `/session/${session.sessionId}/prompt`;
    const { port } = new URL(this.front);
    const start = Date.now();
    await new Promise((resolve) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write(
          `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\n` +
            `Idempotency-Key: ${key}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, Math.floor(body.length / 2))}`,
        );
        setTimeout(() => socket.destroy(), 100);
      });
      socket.on('error', () => undefined);
      socket.on('close', resolve);
    });
    const common = { type: 'op', client: name, op: 'prompt', method: 'POST', path, via: 'front', sessionId: session.sessionId };
    this.history.write({
      ...common,
      id: `${name}-cut-${start}`,
      promptId: null,
      idempotencyKey: key,
      bodyHash: sha256(body),
      start,
      end: Date.now(),
      status: null,
      error: 'cut',
      body: null,
      headers: {},
    });
    if (random.chance(0.5)) {
      await sleep(300);
      session.prompts += 1;
      const text = JSON.parse(body).prompt[0].text;
      await this.admit(name, session, text, key).catch(() => undefined);
    }
  }

  /** Every client at once; resolves when all of them have stopped (each bounded in count and by `stopAt`). */
  async run() {
    await Promise.all([
      this.prompter('c1'),
      this.prompter('c2'),
      this.poller('p1'),
      this.waiter('w1'),
      sseReader('r1', this),
      this.creator('k1'),
    ]);
    await Promise.allSettled(this.retries);
  }
}

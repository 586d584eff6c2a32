import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileSources } from './support/compiled.js';
import { startDaemonProcess, type DaemonProcess } from './support/daemon-process.js';
import { HAS_PROMETHEUS, startPrometheus, type PrometheusProcess } from './support/prometheus.js';
import { HAS_REDIS, startRedis, type RedisProcess } from './support/redis-server.js';
import { eventually as within } from './support/eventually.js';

const TOKEN = 'scrape-secret-7f3a';
const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

/** Prometheus scrapes every second: give it time. */
const eventually = <T>(probe: () => Promise<T | undefined>) => within(probe, 20_000, 100);

const call = (url: string, init: RequestInit = {}) => fetch(url, { ...init, headers: { ...headers, ...(init.headers as object) } });
const hostOf = (url: string) => new URL(url).host;

/**
 * Operating a deployment as an operator would: a single daemon and two
 * cluster nodes (one redis-server), each a child process logging JSON, and a
 * real Prometheus scraping all three with the bearer token.
 */
(HAS_PROMETHEUS && HAS_REDIS ? describe : describe.skip)('operating a deployment (prometheus + redis-server + 3 daemons)', () => {
  jest.setTimeout(90_000);
  let dist: string;
  let dataDir: string;
  let redis: RedisProcess;
  let prometheus: PrometheusProcess;
  let single: DaemonProcess, a: DaemonProcess, b: DaemonProcess;
  const clientIds: string[] = [];

  const start = (env: Record<string, string>) =>
    startDaemonProcess(join(dist, 'daemon', 'bin.js'), {
      TURNS_DATA_DIR: dataDir,
      TURNS_WORKSPACES: dataDir,
      TURNS_TOKEN: TOKEN,
      TURNS_ECHO_DELAY_MS: '20',
      TURNS_LOG: 'info',
      // Polls answered 200 are debug lines by default: the request-id test below reads one.
      TURNS_LOG_POLLS: 'true',
      ...env,
    });
  const cluster = (id: string, adapter: string) =>
    start({
      TURNS_REDIS_URL: redis.url,
      TURNS_NODE_ID: id,
      TURNS_HTTP_ADAPTER: adapter,
      TURNS_LEASE_MS: '3000',
      TURNS_FORWARD_TIMEOUT_MS: '1000',
    });

  async function session(url: string): Promise<string> {
    const body = (await (await call(`${url}/session`, { method: 'POST', body: JSON.stringify({ sessionScope: 'thread' }) })).json()) as {
      sessionId: string;
      clientId: string;
    };
    clientIds.push(body.clientId);
    return body.sessionId;
  }

  async function promptAndWait(url: string, sessionId: string): Promise<void> {
    const res = await call(`${url}/session/${sessionId}/prompt`, {
      method: 'POST',
      body: JSON.stringify({ prompt: [{ type: 'text', text: 'hi' }] }),
    });
    expect(res.status).toBe(202);
    const { promptId } = (await res.json()) as { promptId: string };
    const done = (await (await call(`${url}/session/${sessionId}/turns/${promptId}?waitMs=10000`)).json()) as { state: string };
    expect(done.state).toBe('completed');
  }

  beforeAll(async () => {
    dist = compileSources('operations');
    dataDir = mkdtempSync(join(tmpdir(), 'turns-ops-'));
    redis = await startRedis();
    [single, a, b] = await Promise.all([start({}), cluster('node-a', 'express'), cluster('node-b', 'fastify')]);
    prometheus = await startPrometheus([single.url, a.url, b.url].map(hostOf), TOKEN);
  });

  afterAll(async () => {
    for (const daemon of [single, a, b]) {
      if (daemon && daemon.child.exitCode === null && daemon.child.signalCode === null) {
        daemon.child.kill('SIGKILL');
        await daemon.exited;
      }
    }
    await prometheus?.kill();
    await redis?.kill();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('Prometheus scrapes every node: prompts settled on each, and the forwarding node counts its forwards', async () => {
    const alone = await session(single.url);
    await promptAndWait(single.url, alone);
    await promptAndWait(single.url, alone);
    const owned = await session(a.url);
    // Through node-b: forwarded to node-a, which runs it.
    await promptAndWait(b.url, owned);
    const settled = await eventually(async () => {
      const result = await prometheus.query('sum by (instance) (turns_prompts_settled_total{state="completed"})');
      const byInstance = Object.fromEntries(result.map((r) => [r.metric.instance, Number(r.value[1])]));
      return byInstance[hostOf(single.url)] === 2 && byInstance[hostOf(a.url)] === 1 ? byInstance : undefined;
    });
    expect(settled[hostOf(b.url)] ?? 0).toBe(0);
    const forwards = await eventually(async () => {
      const result = await prometheus.query('turns_cluster_forwards_total{outcome="forwarded"}');
      const value = result.find((r) => r.metric.instance === hostOf(b.url))?.value[1];
      return value !== undefined && Number(value) >= 2 ? Number(value) : undefined;
    });
    expect(forwards).toBeGreaterThanOrEqual(2);
    // Every target is up and scraped with the token.
    const up = await prometheus.query('up{job="turns"}');
    expect(up.map((r) => r.value[1]).sort()).toEqual(['1', '1', '1']);
  });

  it('readiness: Redis killed → 503 naming redis on a cluster node (the single daemon stays ready); back → 200', async () => {
    await expect(call(`${a.url}/health/ready`).then((r) => r.status)).resolves.toBe(200);
    const port = redis.port;
    await redis.kill();
    const down = await eventually(async () => {
      const res = await fetch(`${a.url}/health/ready`);
      return res.status === 503 ? res.json() : undefined;
    });
    expect(down).toEqual({ error: 'Not ready', code: 'not_ready', check: 'redis' });
    expect((await fetch(`${single.url}/health/ready`)).status).toBe(200);
    const status = (await (await call(`${b.url}/daemon/status`)).json()) as { status: string; cluster: object };
    expect(status).toMatchObject({ status: 'degraded', cluster: { nodeId: 'node-b', redis: 'down' } });
    redis = await startRedis(port);
    await eventually(async () => ((await fetch(`${a.url}/health/ready`)).status === 200 ? true : undefined));
    await eventually(async () => ((await fetch(`${b.url}/health/ready`)).status === 200 ? true : undefined));
  });

  it('logs one JSON line per request, with the request id echoed and passed to the owner, and never the token or a client id', async () => {
    const owned = await session(a.url);
    const res = await call(`${b.url}/session/${owned}/turns/current`, { headers: { 'x-request-id': 'trace-me-42' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe('trace-me-42');
    const made = await call(`${single.url}/health`);
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const lines = (daemon: DaemonProcess) => daemon.output.map((line) => JSON.parse(line) as Record<string, unknown>);
    const onOwner = await eventually(async () => lines(a).find((l) => l.requestId === 'trace-me-42'));
    expect(onOwner).toMatchObject({ level: 'info', method: 'GET', route: '/session/:id/turns/current', status: 200, sessionId: owned });
    expect(onOwner.durationMs).toEqual(expect.any(Number));
    const onEntry = await eventually(async () => lines(b).find((l) => l.requestId === 'trace-me-42'));
    expect(onEntry).toMatchObject({ route: 'forwarded', status: 200, sessionId: owned });
    const everything = [single, a, b].flatMap((daemon) => daemon.output).join('\n');
    expect(everything).toMatch(/listening on http/);
    expect(everything).not.toContain(TOKEN);
    expect(clientIds.length).toBeGreaterThan(2);
    for (const clientId of clientIds) expect(everything).not.toContain(clientId);
  });
});

(HAS_PROMETHEUS ? describe : describe.skip)('deploy/ Prometheus files', () => {
  const ROOT = join(__dirname, '..');

  it('the example alerts pass `promtool check rules`', () => {
    const run = spawnSync('promtool', ['check', 'rules', join(ROOT, 'deploy', 'prometheus-alerts.yml')], { encoding: 'utf8' });
    expect(`${run.stdout}${run.stderr}`).toMatch(/SUCCESS: 5 rules found/);
    expect(run.status).toBe(0);
  });

  it('the scrape config, filled in as cluster-demo.sh does, passes `promtool check config`', () => {
    const dir = mkdtempSync(join(tmpdir(), 'turns-promcfg-'));
    try {
      const config = readFileSync(join(ROOT, 'deploy', 'prometheus.yml.template'), 'utf8')
        .replaceAll('__TARGETS__', "'127.0.0.1:4171', '127.0.0.1:4172', '127.0.0.1:4173'")
        .replaceAll('__RULES__', join(ROOT, 'deploy', 'prometheus-alerts.yml'));
      writeFileSync(join(dir, 'prometheus.yml'), config);
      const run = spawnSync('promtool', ['check', 'config', join(dir, 'prometheus.yml')], { encoding: 'utf8' });
      expect(`${run.stdout}${run.stderr}`).toMatch(/SUCCESS/);
      expect(run.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

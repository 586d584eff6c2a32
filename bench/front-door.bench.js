// The front door's cost (issue 27 item 2): what the browser walls, the request
// gate and in-order pipelining (with the one parse of the request they share)
// add to a request, in-process ns, against the server CPU a Fastify settled
// exact poll takes in the built daemon (µs, from /proc), in the same run.
// Loopback only; every case bounded in time.
//
//   npm run build && node bench/front-door.bench.js
//   BENCH_SECONDS=4 BENCH_ROUNDS=5 node bench/front-door.bench.js
//   FRONT_BASELINE_REF=b30c96c node bench/front-door.bench.js   (also: the same stages as that commit stacked them)
import autocannon from 'autocannon';
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildRef } from './support/build-ref.js';
import { pinLoadGenerator, startOnPort } from './support/daemon-process.js';
import { cpuTicks, json, post } from './support/held-requests.js';
import { installFrontDoor } from '../dist/http/front-door.js';
import { browserWalls, browserWallSettings } from '../dist/daemon/browser-walls.js';
import { requestGate } from '../dist/daemon/request-gate.js';
import { inRequestOrder } from '../dist/daemon/pipelined-requests.js';
import { bearerAuth } from '../dist/daemon/bearer-auth.js';
import { PrincipalTable } from '../dist/daemon/principal-table.js';
import { tokenDigest } from '../dist/daemon/tokens-file.js';
import { RouteTable } from '../dist/daemon/route-table.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const REQUESTS = 200_000;
const placement = pinLoadGenerator();

/** The daemon's routes, as its controllers declare them (the poll's among them). */
const ROUTES = [
  ['GET', 'health'],
  ['GET', 'capabilities'],
  ['POST', 'session'],
  ['POST', 'session/:id/load'],
  ['POST', 'session/:id/prompt'],
  ['GET', 'session/:id/pending-prompts'],
  ['DELETE', 'session/:id/pending-prompts/:promptId'],
  ['POST', 'session/:id/cancel'],
  ['DELETE', 'session/:id'],
  ['GET', 'session/:id/events'],
  ['GET', 'session/:id/turns'],
  ['GET', 'session/:id/turns/current'],
  ['GET', 'session/:id/turns/:promptId'],
  ['GET', 'docs'],
  ['GET', 'docs/*'],
  ['GET', 'docs-json'],
].map(([method, path]) => ({ method, path, public: path === 'health' }));

/**
 * ns a request through `stages` installed on a server whose one listener (the
 * framework) finishes the response at once, minus the same with no front door
 * (each request a fresh request and response, as Node makes them): the median
 * of interleaved pairs.
 */
function frontNs(stages, install = (server) => installFrontDoor(server, stages, { routes: new RouteTable(ROUTES) })) {
  const run = (withFront) => {
    const server = new EventEmitter();
    server.on('request', (_req, res) => {
      res.writableFinished = true;
      res.emit('finish');
      res.emit('close');
    });
    if (withFront) install(server);
    const socket = {};
    const url = `/session/${randomUUID()}/turns/${randomUUID()}`;
    const headers = { host: '127.0.0.1:4170', accept: 'application/json', authorization: 'Bearer bench-token' };
    const started = process.hrtime.bigint();
    for (let i = 0; i < REQUESTS; i += 1) {
      const res = new EventEmitter();
      res.writableFinished = false;
      res.setHeader = noop;
      server.emit('request', { method: 'GET', url, headers, socket }, res);
    }
    return Number(process.hrtime.bigint() - started) / REQUESTS;
  };
  const samples = [];
  for (let pair = 0; pair < 3; pair += 1) {
    const bare = run(false);
    samples.push(run(true) - bare);
  }
  return median(samples);
}

const noop = () => undefined;
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];

/** The built daemon on Fastify (`env` on top of its defaults) with a settled prompt: `cpuUs()` loads its exact poll once. */
async function pollDaemon(env) {
  const dataDir = mkdtempSync(join(tmpdir(), 'turns-bench-'));
  const daemon = await startOnPort(['dist/daemon/bin.js'], {
    TURNS_DATA_DIR: dataDir,
    TURNS_WORKSPACES: dataDir,
    TURNS_HTTP_ADAPTER: 'fastify',
    ...env,
  });
  const base = daemon.url;
  const { sessionId } = await json(base, '/session', post({ sessionScope: 'thread' }));
  const { promptId } = await json(base, `/session/${sessionId}/prompt`, post({ prompt: [{ type: 'text', text: 'hello' }] }));
  await json(base, `/session/${sessionId}/turns/${promptId}?waitMs=10000`);
  const url = `${base}/session/${sessionId}/turns/${promptId}`;
  return {
    /** Server CPU µs a request of one load (after a warm-up not counted). */
    async cpuUs() {
      await autocannon({ url, connections: 20, duration: 0.5 });
      const ticks = cpuTicks(daemon.child.pid);
      const result = await autocannon({ url, connections: 20, duration: SECONDS });
      if (result.non2xx > 0) throw new Error(`${result.non2xx} polls failed`);
      return ((cpuTicks(daemon.child.pid) - ticks) * 10_000) / Math.max(1, result.requests.total);
    },
    async stop() {
      await daemon.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

const walls = browserWalls(browserWallSettings({ host: '127.0.0.1', allowOrigins: ['http://localhost:3000'] }));
const gate = requestGate(4 * 1024 * 1024);
const token = bearerAuth(new PrincipalTable([{ principal: 'bench', digest: tokenDigest('bench-token'), operator: false }]));
const fronts = {
  'parse alone': [],
  'walls + gate + pipelining': [walls, gate, inRequestOrder()],
  'the same + bearer token': [walls, gate, token, inRequestOrder()],
};
const baselineRef = process.env.FRONT_BASELINE_REF;
if (baselineRef) {
  // That commit's walls, gate and orderer, each put in front by re-installing the server's listeners, in its order.
  const dir = buildRef(baselineRef);
  if (!dir) throw new Error(`could not build ${baselineRef}`);
  const ref = async (path) => import(join(dir, 'dist', path));
  const { installBrowserWalls } = await ref('daemon/browser-walls.js');
  const { requestGate: refGate } = await ref('daemon/request-gate.js');
  const { inRequestOrder: refOrder } = await ref('daemon/pipelined-requests.js');
  const { RouteTable: RefRouteTable } = await ref('daemon/route-table.js');
  const front = (await ref('http/request-front.js').catch(() => ref('common/request-front.js'))).putInFront;
  const settings = browserWallSettings({ host: '127.0.0.1', allowOrigins: ['http://localhost:3000'] });
  fronts[`${baselineRef}: walls + gate + pipelining`] = (server) => {
    front(server, refGate(new RefRouteTable(ROUTES), 4 * 1024 * 1024));
    front(server, refOrder());
    installBrowserWalls(server, settings);
  };
}
const daemons = {
  defaults: await pollDaemon({}),
  'metrics and log off': await pollDaemon({ TURNS_METRICS: 'false', TURNS_LOG: 'silent' }),
};
// Each round: the in-process figures, then a load of each daemon; a share is ns ÷ the poll's CPU of the same round.
const rounds = [];
try {
  for (let round = 0; round < ROUNDS; round += 1) {
    const ns = Object.fromEntries(
      Object.entries(fronts).map(([name, stages]) => [name, typeof stages === 'function' ? frontNs([], stages) : frontNs(stages)]),
    );
    const cpu = {};
    for (const [name, daemon] of Object.entries(daemons)) cpu[name] = await daemon.cpuUs();
    rounds.push({ ns, cpu });
  }
} finally {
  for (const daemon of Object.values(daemons)) await daemon.stop();
}

console.log(`front door, ${placement}; ${ROUNDS} rounds, medians (shares: of the same round's poll)`);
for (const name of Object.keys(daemons)) {
  console.log(`Fastify settled exact poll, ${name}: ${median(rounds.map((r) => r.cpu[name])).toFixed(1)} µs server CPU a request`);
}
for (const name of Object.keys(fronts)) {
  const shares = Object.keys(daemons).map(
    (cpuName) => `${(median(rounds.map((r) => r.ns[name] / (r.cpu[cpuName] * 1_000))) * 100).toFixed(2)}% (${cpuName})`,
  );
  console.log(
    `${name.padEnd(26)} ${median(rounds.map((r) => r.ns[name]))
      .toFixed(0)
      .padStart(5)} ns a request = ${shares.join(', ')} of a poll`,
  );
}

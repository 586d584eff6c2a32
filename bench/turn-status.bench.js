// Turn-status benchmarks: every number is a ratio against a baseline measured
// in the same run (GET /health on the same adapter), so results compare across
// machines. Traffic goes to 127.0.0.1 only; each run is bounded in time.
//
//   npm run bench                 (both adapters, 3 s a case)
//   BENCH_SECONDS=10 npm run bench
import autocannon from 'autocannon';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../dist/daemon/create-app.js';
import { EchoEngine } from '../dist/engines/echo.engine.js';

process.env.TURNS_LOG = 'silent';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const CONNECTIONS = 16;

async function load(url, headers = {}) {
  const result = await autocannon({ url, connections: CONNECTIONS, duration: SECONDS, headers });
  if (result.non2xx && !url.includes('/turns/00000000')) throw new Error(`${url}: ${result.non2xx} non-2xx answers`);
  return result.requests.average;
}

async function json(base, path, init) {
  const res = await fetch(`${base}${path}`, init);
  return res.status === 204 ? undefined : res.json();
}

/** A session with `turns` settled echo prompts, polled once so answers are written back. */
async function settledSession(base, turns) {
  const { sessionId } = await json(base, '/session', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ sessionScope: 'thread' }),
  });
  let promptId;
  for (let i = 0; i < turns; i += 1) {
    ({ promptId } = await json(base, `/session/${sessionId}/prompt`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: [{ type: 'text', text: `prompt ${i} ${'x'.repeat(200)}` }] }),
    }));
    while (['queued', 'running'].includes((await json(base, `/session/${sessionId}/turns/${promptId}`)).state));
  }
  await json(base, `/session/${sessionId}/turns/current`);
  return { sessionId, promptId };
}

async function benchAdapter(httpAdapter) {
  const dataDir = mkdtempSync(join(tmpdir(), 'turns-bench-'));
  const config = {
    host: '127.0.0.1',
    port: 0,
    dataDir,
    workspaces: [dataDir],
    agent: 'echo',
    maxPendingPrompts: 5,
    chatRecording: true,
    httpAdapter,
    echoDelayMs: 0,
  };
  const app = await createApp(config, { engine: new EchoEngine(0) });
  await app.listen(0, '127.0.0.1');
  const base = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  try {
    const small = await settledSession(base, 5);
    const large = await settledSession(base, 1_500); // 4,500 chain records: the scan window nearly full
    const huge = await settledSession(base, 5_000); // 15,000 records: three times the window
    const missing = '00000000-0000-4000-8000-000000000000';
    const rows = { health: await load(`${base}/health`) };
    rows.current = await load(`${base}/session/${small.sessionId}/turns/current`);
    rows.exact = await load(`${base}/session/${small.sessionId}/turns/${small.promptId}`);
    rows.notFoundSmall = await load(`${base}/session/${small.sessionId}/turns/${missing}`);
    rows.notFoundLarge = await load(`${base}/session/${large.sessionId}/turns/${missing}`);
    rows.notFoundHuge = await load(`${base}/session/${huge.sessionId}/turns/${missing}`);
    return rows;
  } finally {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const results = {};
for (const adapter of ['express', 'fastify']) results[adapter] = await benchAdapter(adapter);

const ratio = (a, b) => (a / b).toFixed(2);
console.log(`\nrequests/s averaged over ${SECONDS}s, ${CONNECTIONS} connections; ratios against GET /health of the same adapter\n`);
console.log('case                                   express   ratio   fastify   ratio');
const label = {
  health: 'GET /health (baseline)',
  current: 'turns/current, settled (memory)',
  exact: 'turns/:promptId, settled (memory)',
  notFoundSmall: '404 scan, 15-record transcript',
  notFoundLarge: '404 scan, 4,500-record transcript',
  notFoundHuge: '404 scan, 15,000-record transcript',
};
for (const key of Object.keys(label)) {
  const e = results.express[key];
  const f = results.fastify[key];
  console.log(
    `${label[key].padEnd(38)} ${String(Math.round(e)).padStart(7)}  ${ratio(e, results.express.health).padStart(6)}   ${String(Math.round(f)).padStart(7)}  ${ratio(f, results.fastify.health).padStart(6)}`,
  );
}
console.log(`\nfastify / express on settled turns/current: ${ratio(results.fastify.current, results.express.current)}`);
console.log(
  `scan cost follows the window, not the file: 15,000-record / 4,500-record 404 throughput = ${ratio(results.express.notFoundHuge, results.express.notFoundLarge)} (express), ${ratio(results.fastify.notFoundHuge, results.fastify.notFoundLarge)} (fastify)`,
);

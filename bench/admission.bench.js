// Admission over HTTP, this build against POLL_BASELINE_REF's (printed, never asserted): what a 202 costs now
// that it waits for its synced ledger record. Each round starts a fresh pair of daemons (echo engine, no delay,
// a data dir each) on one adapter, the order alternating, and times POST /session/:id/prompt on both:
//   - one admitter, back to back, on one session: p50/p99 latency;
//   - 20 concurrent admitters on one session (their records share a group commit);
//   - 20 concurrent admitters on 20 sessions (one ledger each: nothing to share).
// Admissions per second are the rows' throughput; ratios are new ÷ old of the median round.
//   POLL_BASELINE_REF=<commit> npm run build && node bench/admission.bench.js   (BENCH_ROUNDS, BENCH_ADMISSIONS)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { buildRef } from './support/build-ref.js';
import { startOnPort } from './support/daemon-process.js';
import { json, percentile, post } from './support/held-requests.js';

const REF = process.env.POLL_BASELINE_REF;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const ADMISSIONS = Number(process.env.BENCH_ADMISSIONS ?? 400);
if (!REF) throw new Error('POLL_BASELINE_REF=<commit> names the build to compare with');

/** A daemon from `bin` on `adapter`, with a data dir of its own; the queue is long enough for 20 admitters. */
async function start(bin, adapter) {
  const dataDir = mkdtempSync(join(tmpdir(), 'turns-admission-'));
  const env = {
    TURNS_DATA_DIR: dataDir,
    TURNS_WORKSPACES: dataDir,
    TURNS_HTTP_ADAPTER: adapter,
    TURNS_LOG: 'warn',
    TURNS_MAX_PENDING_PROMPTS: '1000',
  };
  // Ready once /health answers: at TURNS_LOG=warn a daemon prints no address.
  const daemon = await startOnPort([bin], env);
  const sessions = [];
  for (let i = 0; i < 20; i += 1) sessions.push((await json(daemon.url, '/session', post({ sessionScope: 'thread' }))).sessionId);
  return {
    url: daemon.url,
    sessions,
    stop: async () => {
      await daemon.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** `count` admissions from `admitters` loops, admitter i on `sessionOf(i)`; latencies (ms) and admissions per second. */
async function admit(daemon, count, admitters, sessionOf) {
  const latencies = [];
  let next = 0;
  const body = JSON.stringify({ prompt: [{ type: 'text', text: 'hello' }] });
  const began = performance.now();
  await Promise.all(
    Array.from({ length: admitters }, async (_, admitter) => {
      while (next < count) {
        next += 1;
        const t0 = performance.now();
        const res = await fetch(`${daemon.url}/session/${sessionOf(admitter)}/prompt`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });
        await res.arrayBuffer();
        if (res.status !== 202) throw new Error(`admission answered ${res.status}`);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - began) / 1000;
  latencies.sort((a, b) => a - b);
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), rps: count / seconds };
}

const CASES = {
  'one admitter': (d) => admit(d, ADMISSIONS, 1, () => d.sessions[0]),
  '20 admitters, 1 session': (d) => admit(d, ADMISSIONS, 20, () => d.sessions[0]),
  '20 admitters, 20 sessions': (d) => admit(d, ADMISSIONS, 20, (i) => d.sessions[i]),
};

const root = buildRef(REF);
if (!root) throw new Error(`${REF} did not build`);
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
try {
  console.log(`admission, this build ÷ ${REF}, ${ROUNDS} rounds of ${ADMISSIONS} admissions a case, a fresh pair each round:`);
  for (const adapter of ['express', 'fastify']) {
    const rows = Object.fromEntries(Object.keys(CASES).map((name) => [name, { old: [], mine: [] }]));
    for (let round = 0; round < ROUNDS; round += 1) {
      const newFirst = round % 2 === 1;
      const bins = [join(root, 'dist/daemon/bin.js'), 'dist/daemon/bin.js'];
      const daemons = [];
      try {
        for (const bin of newFirst ? [...bins].reverse() : bins) daemons.push(await start(bin, adapter));
        const [old, mine] = newFirst ? [daemons[1], daemons[0]] : daemons;
        for (const [name, run] of Object.entries(CASES)) {
          const pair = newFirst ? [mine, old] : [old, mine];
          const results = [];
          for (const daemon of pair) results.push(await run(daemon));
          const [a, b] = newFirst ? [results[1], results[0]] : results;
          rows[name].old.push(a);
          rows[name].mine.push(b);
        }
      } finally {
        await Promise.all(daemons.map((daemon) => daemon.stop()));
      }
    }
    for (const [name, { old, mine }] of Object.entries(rows)) {
      const m = (list, key) => median(list.map((r) => r[key]));
      console.log(
        `  ${adapter.padEnd(8)} ${name.padEnd(26)} adm/s ${m(mine, 'rps').toFixed(0)} ÷ ${m(old, 'rps').toFixed(0)} = ${(m(mine, 'rps') / m(old, 'rps')).toFixed(3)}` +
          `; p50 ${m(mine, 'p50').toFixed(2)} vs ${m(old, 'p50').toFixed(2)} ms; p99 ${m(mine, 'p99').toFixed(2)} vs ${m(old, 'p99').toFixed(2)} ms`,
      );
    }
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}

// What the synced ledger record behind a 202 costs an admission (printed, never
// asserted): the ledger's write path alone — LedgerFiles from dist/, in this
// process, on a temp dir of this machine's disk — each admission an in_flight
// record appended and awaited, as the admission's answer awaits it.
//   - one admitter: p50/p99 of an append with its fdatasync, and of the same
//     append with fdatasync made a no-op (rounds alternating in the same run):
//     the difference is the sync's own cost;
//   - 20 concurrent admitters on one session: p50/p99 per admission and
//     fdatasyncs per admission — group commit shares one write and one sync
//     among what queued behind the one under way, so an admission waits for
//     about two syncs at most, however many admitters there are;
//   - 20 admitters on 20 sessions (one file each: nothing to share), alike.
//   npm run build && node bench/admission-sync.bench.js   (BENCH_ADMISSIONS, BENCH_ROUNDS, BENCH_DIR)
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';

const ADMISSIONS = Number(process.env.BENCH_ADMISSIONS ?? 400);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const ADMITTERS = 20;
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const load = (path) => import(pathToFileURL(join(root, 'dist', path)).href);
const { LedgerFiles } = await load('ledger/ledger-files.js');
const { inFlightRecord } = await load('ledger/ledger-record.js');

// Every fdatasync is counted; with `syncOff` it returns at once (the no-sync row).
const probe = await open(fileURLToPath(import.meta.url), 'r');
const handles = Object.getPrototypeOf(probe);
await probe.close();
const realSync = handles.datasync;
let syncs = 0;
let syncOff = false;
handles.datasync = function datasync() {
  syncs += 1;
  return syncOff ? Promise.resolve() : realSync.call(this);
};

const dir = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), 'turns-admission-sync-'));
const logger = { warn: (line) => console.error(line) };
const ledger = () =>
  new LedgerFiles(
    (sessionId) => join(dir, `${sessionId}.ledger.jsonl`),
    () => true,
    logger,
  );

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const ms = (value) => `${value.toFixed(2)} ms`;

/** `admitters` loops of back-to-back admissions, `count` in all, on the sessions `sessionOf` picks; latencies and syncs per admission. */
async function run(count, admitters, sessionOf) {
  const files = ledger();
  const samples = [];
  const syncsBefore = syncs;
  await Promise.all(
    Array.from({ length: admitters }, async (_, admitter) => {
      for (let i = 0; i < count / admitters; i += 1) {
        const started = performance.now();
        await files.append(sessionOf(admitter), inFlightRecord(randomUUID(), Date.now()));
        samples.push(performance.now() - started);
      }
    }),
  );
  return { samples, syncsPerAdmission: (syncs - syncsBefore) / samples.length };
}

function summary(label, runs) {
  const samples = runs.flatMap((r) => r.samples).sort((a, b) => a - b);
  const perAdmission = runs.reduce((sum, r) => sum + r.syncsPerAdmission, 0) / runs.length;
  console.log(
    `${label.padEnd(44)} p50 ${ms(percentile(samples, 50)).padStart(9)}  p99 ${ms(percentile(samples, 99)).padStart(9)}  fdatasync/admission ${perAdmission.toFixed(2)}`,
  );
}

try {
  console.log(`admission's ledger record, ${ADMISSIONS} admissions a row and round, ${ROUNDS} rounds, on ${dir}`);
  const rows = { synced: [], unsynced: [], shared: [], spread: [] };
  for (let round = 0; round < ROUNDS; round += 1) {
    const one = randomUUID();
    syncOff = false;
    rows.synced.push(await run(ADMISSIONS, 1, () => one));
    syncOff = true;
    rows.unsynced.push(await run(ADMISSIONS, 1, () => one));
    syncOff = false;
    const shared = randomUUID();
    rows.shared.push(await run(ADMISSIONS, ADMITTERS, () => shared));
    const sessions = Array.from({ length: ADMITTERS }, () => randomUUID());
    rows.spread.push(await run(ADMISSIONS, ADMITTERS, (admitter) => sessions[admitter]));
  }
  summary('1 admitter, synced (this build)', rows.synced);
  summary('1 admitter, fdatasync a no-op', rows.unsynced);
  summary(`${ADMITTERS} admitters, 1 session (group commit)`, rows.shared);
  summary(`${ADMITTERS} admitters, ${ADMITTERS} sessions (1 each)`, rows.spread);
} finally {
  handles.datasync = realSync;
  rmSync(dir, { recursive: true, force: true });
}

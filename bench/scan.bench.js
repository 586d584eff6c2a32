// The transcript scanner alone, without HTTP: a full-window miss (a promptId
// that is not there, 10 pages × 500 records of a 6,000-record transcript) and
// a repeated miss on the unchanged file (answered from the miss cache, which
// must open no file). The baselines, measured in the same run, their scans
// interleaved with this build's:
//   - the scanner at each git ref of SCAN_BASELINE_REF (comma-separated,
//     default d473a8c, the scanner when the performance issue was filed):
//     built from that commit's sources into a temporary directory with this
//     checkout's node_modules — an A/B of a change is `SCAN_BASELINE_REF=<the
//     commit without it>`; needs git history, skipped with a note without it;
//   - a straightforward scan that parses every line of the same window.
// Then the same window miss of this build behind ~1 MiB and ~256 MiB of older
// records (the window, not the file, sets the cost).
//   npm run build && node bench/scan.bench.js      (SCAN_ROUNDS, SCAN_BASELINE_REF)
import { subscribe } from 'node:diagnostics_channel';
import { randomUUID } from 'node:crypto';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildRef } from './support/build-ref.js';

process.env.TURNS_LOG = 'silent';
const ROUNDS = Number(process.env.SCAN_ROUNDS ?? 5);
const PER_ROUND = 40;
const BASELINE_REFS = (process.env.SCAN_BASELINE_REF ?? 'd473a8c').split(',').filter(Boolean);
const temporary = [];

/**
 * A recorder and scanner of the build at `root`, over a fresh transcript of
 * our recorder's layout: `turns` is a list of [turns, text bytes] written
 * oldest first (default 2,000 turns, 6,000 records).
 */
async function scannerOf(root, turns = [[2_000, 200]]) {
  const load = (path) => import(pathToFileURL(join(root, 'dist', path)).href);
  const { ChatRecordingService } = await load('transcript/chat-recording.service.js');
  const { JsonlTranscriptScanService } = await load('transcript/jsonl-transcript-scan.service.js');
  const { SystemClock } = await load('common/clock.js');
  const { TRANSCRIPT_SCAN_LIMITS } = await load('turns/rules/limits.js');
  const limits = { ...TRANSCRIPT_SCAN_LIMITS, maxSnapshotBytes: 512 * 1024 * 1024 };
  const dataDir = mkdtempSync(join(tmpdir(), 'turns-scan-'));
  temporary.push(dataDir);
  const recorder = new ChatRecordingService({ dataDir, enabled: true }, new SystemClock());
  const sessionId = randomUUID();
  const path = recorder.transcriptPath('/w', sessionId);
  mkdirSync(dirname(path), { recursive: true });
  writeTranscript(path, sessionId, turns);
  await recorder.attach(sessionId, '/w');
  const scan = new JsonlTranscriptScanService(recorder, limits);
  return { path, limits, find: (promptId) => scan.findTurnResult(sessionId, promptId) };
}

function writeTranscript(path, sessionId, turns) {
  const fd = openSync(path, 'a');
  let parentUuid = null;
  let n = 0;
  for (const [count, textBytes] of turns) {
    let lines = '';
    for (let i = 0; i < count; i += 1, n += 1) {
      for (const type of ['user', 'assistant', 'system']) {
        const uuid = randomUUID();
        const base = { uuid, parentUuid, sessionId, timestamp: new Date().toISOString(), type, promptId: `p${n}` };
        const record =
          type === 'system'
            ? {
                ...base,
                subtype: 'turn_result',
                systemPayload: { promptId: `p${n}`, state: 'completed', endedAt: n + 1, resultText: `answer ${'z'.repeat(150)}` },
              }
            : { ...base, message: { role: type === 'user' ? 'user' : 'model', parts: [{ text: `prompt ${n} ${'x'.repeat(textBytes)}` }] } };
        lines += `${JSON.stringify(record)}\n`;
        parentUuid = uuid;
      }
      if (lines.length > 8 * 1024 * 1024) {
        writeSync(fd, lines);
        lines = '';
      }
    }
    writeSync(fd, lines);
  }
  closeSync(fd);
}

/** The straightforward scan: read the window backward in 256 KiB chunks, JSON.parse every line, follow parentUuid, compare. */
async function parseEveryLine(path, limits, promptId) {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    let position = size;
    let carry = '';
    let expect;
    let seen = 0;
    while (position > 0 && seen < limits.recordsPerPage * limits.maxPages) {
      const start = Math.max(0, position - 256 * 1024);
      const buffer = Buffer.allocUnsafe(position - start);
      await handle.read(buffer, 0, buffer.length, start);
      const lines = (buffer.toString('utf8') + carry).split('\n');
      carry = start > 0 ? lines.shift() : '';
      for (let i = lines.length - 1; i >= 0; i -= 1) {
        if (!lines[i]) continue;
        const record = JSON.parse(lines[i]);
        if (expect !== undefined && record.uuid !== expect) continue;
        seen += 1;
        if (record.type === 'system' && record.subtype === 'turn_result' && record.systemPayload?.promptId === promptId) return record;
        expect = record.parentUuid;
      }
      position = start;
    }
    return undefined;
  } finally {
    await handle.close();
  }
}

/**
 * One round: `PER_ROUND` scans of each case, a new missing promptId each
 * time, interleaved scan by scan (the order rotating), so a drift of this
 * shared machine weighs on every case alike; mean ms per scan of each case.
 */
async function timeRound(cases, tag) {
  const totals = cases.map(() => 0);
  for (let i = 0; i < PER_ROUND; i += 1) {
    for (let k = 0; k < cases.length; k += 1) {
      const c = (i + k) % cases.length;
      const started = performance.now();
      await cases[c][1](`missing-${tag}-${i}`);
      totals[c] += performance.now() - started;
    }
  }
  return totals.map((total) => total / PER_ROUND);
}
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];

const current = await scannerOf('.');
const refs = [];
for (const ref of BASELINE_REFS) {
  const root = buildRef(ref);
  if (root) temporary.push(root);
  if (root) refs.push([`the scanner at ${ref}`, (await scannerOf(root)).find]);
  else console.log(`(the scanner at ${ref} was not built: this checkout has no git history for it)`);
}
const everyLine = (promptId) => parseEveryLine(current.path, current.limits, promptId);
const cases = [['this build', current.find], ...refs, ['parse every line', everyLine]];
for (const [, find] of cases) for (let i = 0; i < 5; i += 1) await find(`warm-${i}`);
const times = new Map(cases.map(([name]) => [name, []]));
for (let round = 0; round < ROUNDS; round += 1) {
  const means = await timeRound(cases, round);
  cases.forEach(([name], c) => times.get(name).push(means[c]));
}
// Every scan that opens the transcript reports on this channel (any build's: the channel is per name).
const opened = { scans: 0, bytes: 0, counting: false };
subscribe('nest-turn-status:transcript-scan', ({ bytesRead }) => {
  if (!opened.counting) return;
  opened.scans += 1;
  opened.bytes += bytesRead;
});
await current.find('missing-repeated'); // the miss the repeats find in the cache
opened.counting = true;
const started = performance.now();
for (let i = 0; i < PER_ROUND; i += 1) await current.find('missing-repeated');
const repeated = (performance.now() - started) / PER_ROUND;
opened.counting = false;

// The same window behind ~1 MiB and ~256 MiB of older records, alternating rounds.
const small = await scannerOf('.', [[2_000, 50]]);
const huge = await scannerOf('.', [
  [2_000, 64_000],
  [2_000, 50],
]);
const sizes = { small: [], huge: [] };
for (let round = 0; round < ROUNDS; round += 1) {
  const [small1, huge1] = await timeRound(
    [
      ['small', small.find],
      ['huge', huge.find],
    ],
    `size-${round}`,
  );
  sizes.small.push(small1);
  sizes.huge.push(huge1);
}

const ours = median(times.get('this build'));
/** The median over the rounds of `name`'s time ÷ this build's in the same round. */
const slower = (name) => median(times.get(name).map((ms, round) => ms / times.get('this build')[round]));
console.log(
  `full-window miss (median of ${ROUNDS} rounds × ${PER_ROUND} scans, interleaved scan by scan; ratio = median of the rounds' ratios):`,
);
for (const [name] of cases) {
  const ms = median(times.get(name));
  const rounds = times
    .get(name)
    .map((t) => t.toFixed(2))
    .join(' ');
  console.log(
    `  ${name.padEnd(28)} ${ms.toFixed(2)} ms   (${rounds})${name === 'this build' ? '' : `   → this build ${slower(name).toFixed(2)}× faster`}`,
  );
}
console.log(
  `repeated miss on the unchanged file: ${repeated.toFixed(3)} ms (${(ours / repeated).toFixed(0)}× faster than a fresh miss); files opened in ${PER_ROUND} repeats: ${opened.scans}, bytes read: ${opened.bytes}`,
);
const ratio = median(sizes.huge.map((t, round) => t / sizes.small[round]));
console.log(
  `window miss behind 256 MiB ÷ behind 1 MiB (median of the rounds' ratios): ${ratio.toFixed(2)} (${median(sizes.huge).toFixed(2)} ms, ${median(sizes.small).toFixed(2)} ms)`,
);
for (const dir of temporary) rmSync(dir, { recursive: true, force: true });

// The transcript scanner alone, without HTTP: a full-window miss (a promptId
// that is not there, 10 pages × 500 records of a 6,000-record transcript) and
// a repeated miss on the unchanged file (answered from the miss cache); and,
// as the baseline in the same run, a scan that parses every line of the window.
//   npm run build && node bench/scan.bench.js
import { randomUUID } from 'node:crypto';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ChatRecordingService } from '../dist/transcript/chat-recording.service.js';
import { JsonlTranscriptScanService } from '../dist/transcript/jsonl-transcript-scan.service.js';
import { SystemClock } from '../dist/common/clock.js';
import { TRANSCRIPT_SCAN_LIMITS } from '../dist/common/limits.js';

process.env.TURNS_LOG = 'silent';
const ROUNDS = Number(process.env.SCAN_ROUNDS ?? 40);
const dataDir = mkdtempSync(join(tmpdir(), 'turns-scan-'));
const recorder = new ChatRecordingService({ dataDir, enabled: true }, new SystemClock());
const sessionId = randomUUID();
const path = recorder.transcriptPath('/w', sessionId);
mkdirSync(dirname(path), { recursive: true });
const fd = openSync(path, 'a');
let parentUuid = null;
for (let i = 0; i < 2_000; i += 1) {
  for (const type of ['user', 'assistant', 'system']) {
    const uuid = randomUUID();
    const base = { uuid, parentUuid, sessionId, timestamp: new Date().toISOString(), type, promptId: `p${i}` };
    const record =
      type === 'system'
        ? {
            ...base,
            subtype: 'turn_result',
            systemPayload: { promptId: `p${i}`, state: 'completed', endedAt: i + 1, resultText: `answer ${'z'.repeat(150)}` },
          }
        : { ...base, message: { role: type === 'user' ? 'user' : 'model', parts: [{ text: `prompt ${i} ${'x'.repeat(200)}` }] } };
    writeSync(fd, `${JSON.stringify(record)}\n`);
    parentUuid = uuid;
  }
}
closeSync(fd);
await recorder.attach(sessionId, '/w');
const scan = new JsonlTranscriptScanService(recorder, TRANSCRIPT_SCAN_LIMITS);
for (let i = 0; i < 5; i += 1) await scan.findTurnResult(sessionId, `warm-${i}`);
let started = performance.now();
for (let i = 0; i < ROUNDS; i += 1) await scan.findTurnResult(sessionId, `missing-${i}`);
const fresh = (performance.now() - started) / ROUNDS;
started = performance.now();
for (let i = 0; i < ROUNDS; i += 1) await scan.findTurnResult(sessionId, 'missing-0');
const repeated = (performance.now() - started) / ROUNDS;
// The baseline, in the same run: the straightforward scan this one replaced — read the
// window backward in the same chunks, JSON.parse every line, follow parentUuid, compare.
async function parseEveryLine(promptId) {
  const { open } = await import('node:fs/promises');
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    let position = size;
    let carry = '';
    let expect;
    let seen = 0;
    while (position > 0 && seen < TRANSCRIPT_SCAN_LIMITS.recordsPerPage * TRANSCRIPT_SCAN_LIMITS.maxPages) {
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
for (let i = 0; i < 5; i += 1) await parseEveryLine(`warm-${i}`);
started = performance.now();
for (let i = 0; i < ROUNDS; i += 1) await parseEveryLine(`missing-${i}`);
const baseline = (performance.now() - started) / ROUNDS;
console.log(`full-window miss ${fresh.toFixed(2)} ms; repeated miss on the unchanged file ${repeated.toFixed(3)} ms (${ROUNDS} rounds)`);
console.log(
  `baseline, parsing every line of the same window: ${baseline.toFixed(2)} ms → full-window miss ${(baseline / fresh).toFixed(1)}× faster, repeated miss ${(baseline / repeated).toFixed(0)}× faster`,
);
if (process.env.KEEP) console.log(path);
else rmSync(dataDir, { recursive: true, force: true });

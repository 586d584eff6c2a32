import { appendFileSync, renameSync, writeFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TRANSCRIPT_SCAN_LIMITS } from '../turns/rules/limits.js';
import type { ChatRecordingService } from './chat-recording.service.js';
import { JsonlTranscriptScanService, type TranscriptScanLimits } from './jsonl-transcript-scan.service.js';
import { TranscriptBuilder } from '../../test/support/transcript-fixtures.js';
import { TranscriptSnapshot } from './transcript-snapshot.js';

describe('JsonlTranscriptScanService', () => {
  let path: string;
  let flush: jest.Mock;
  const sid = '00000000-0000-4000-8000-000000000001';

  /** Runs `change` once the scan has its snapshot, before it reads a line. */
  async function duringScan<T>(change: () => void, scan: () => Promise<T>): Promise<T> {
    const original = TranscriptSnapshot.prototype.batchesBefore;
    const spy = jest.spyOn(TranscriptSnapshot.prototype, 'batchesBefore').mockImplementation(async function* (
      this: TranscriptSnapshot,
      end,
      max,
      skip,
    ) {
      change();
      yield* original.call(this, end, max, skip);
    });
    try {
      return await scan();
    } finally {
      spy.mockRestore();
    }
  }

  function scanner(limits: Partial<TranscriptScanLimits> = {}) {
    const recorder = {
      pathOf: (id: string) => (id === sid ? path : undefined),
      flush,
      chainTipOf: () => undefined,
    } as unknown as ChatRecordingService;
    return new JsonlTranscriptScanService(recorder, { ...TRANSCRIPT_SCAN_LIMITS, ...limits });
  }

  beforeEach(() => {
    path = join(mkdtempSync(join(tmpdir(), 'scan-')), `${sid}.jsonl`);
    flush = jest.fn().mockResolvedValue(undefined);
  });

  it('finds an exact promptId and the newest result, after flushing the recorder', async () => {
    const t = new TranscriptBuilder(sid);
    t.turn('a');
    t.turn('b');
    writeFileSync(path, t.toJsonl());
    const scan = scanner();
    await expect(scan.findTurnResult(sid, 'a')).resolves.toMatchObject({
      sessionId: sid,
      promptId: 'a',
      state: 'completed',
      resultText: 'answer a',
    });
    await expect(scan.findNewestTurnResult(sid)).resolves.toMatchObject({ promptId: 'b' });
    await expect(scan.findTurnResult(sid, 'zzz')).resolves.toBeUndefined();
    expect(flush).toHaveBeenCalledWith(sid);
  });

  it('reads the persisted-only shape: no queuedAt', async () => {
    const t = new TranscriptBuilder(sid);
    t.turn('a');
    writeFileSync(path, t.toJsonl());
    expect(await scanner().findTurnResult(sid, 'a')).not.toHaveProperty('queuedAt');
  });

  it('answers not found for a missing file or an unknown session', async () => {
    await expect(scanner().findNewestTurnResult(sid)).resolves.toBeUndefined();
    await expect(scanner().findNewestTurnResult('other')).resolves.toBeUndefined();
  });

  it('stops after 10 pages of 500 records: a result beyond the window is not found', async () => {
    const t = new TranscriptBuilder(sid);
    t.turnResult('edge-out');
    t.filler(4_999); // edge-out is record 5,000 from the end... plus one below
    t.turnResult('edge-in');
    t.filler(4_999 - 1);
    writeFileSync(path, t.toJsonl());
    const scan = scanner();
    // edge-in is the 4,999th record from the end, inside the window of 5,000.
    await expect(scan.findTurnResult(sid, 'edge-in')).resolves.toMatchObject({ promptId: 'edge-in' });
    await expect(scan.findTurnResult(sid, 'edge-out')).resolves.toBeUndefined();
  });

  it('counts pages exactly: with 2 pages of 5 records the 10th record is in, the 11th out', async () => {
    const t = new TranscriptBuilder(sid);
    t.turnResult('eleventh');
    t.turnResult('tenth');
    t.filler(9);
    writeFileSync(path, t.toJsonl());
    const scan = scanner({ recordsPerPage: 5, maxPages: 2 });
    await expect(scan.findTurnResult(sid, 'tenth')).resolves.toBeDefined();
    await expect(scan.findTurnResult(sid, 'eleventh')).resolves.toBeUndefined();
  });

  it('walks only the active chain: a rewound branch is invisible', async () => {
    const t = new TranscriptBuilder(sid);
    t.turn('kept');
    const branchPoint = t.records.at(-1)!.uuid;
    t.turn('rewound');
    t.add({ type: 'system', subtype: 'rewind', systemPayload: { promptId: 'rewound' } }, branchPoint);
    t.turn('after');
    writeFileSync(path, t.toJsonl());
    const scan = scanner();
    await expect(scan.findTurnResult(sid, 'rewound')).resolves.toBeUndefined();
    await expect(scan.findTurnResult(sid, 'kept')).resolves.toBeDefined();
    await expect(scan.findTurnResult(sid, 'after')).resolves.toBeDefined();
  });

  it('skips a torn last line and invalid records', async () => {
    const t = new TranscriptBuilder(sid);
    t.turn('a');
    t.add({ type: 'system', subtype: 'turn_result', systemPayload: { promptId: 'bad', state: 'running', endedAt: 1 } });
    writeFileSync(path, t.toJsonl() + '{"uuid":"torn","parentUu');
    const scan = scanner();
    await expect(scan.findNewestTurnResult(sid)).resolves.toMatchObject({ promptId: 'a' });
    await expect(scan.findTurnResult(sid, 'bad')).resolves.toBeUndefined();
  });

  it('reports a record larger than a page as transcript_page_too_large', async () => {
    const t = new TranscriptBuilder(sid);
    t.turn('a');
    t.add({ message: { role: 'model', parts: [{ text: 'x'.repeat(5_000) }] } });
    writeFileSync(path, t.toJsonl());
    await expect(scanner({ bytesPerPage: 4_096 }).findNewestTurnResult(sid)).rejects.toMatchObject({
      status: 413,
      code: 'transcript_page_too_large',
      details: expect.objectContaining({ maxBytes: 4_096, pageBytes: expect.any(Number) }),
    });
  });

  it('reports a snapshot over the maximum as transcript_too_large', async () => {
    const t = new TranscriptBuilder(sid);
    t.turn('a');
    writeFileSync(path, t.toJsonl());
    await expect(scanner({ maxSnapshotBytes: 100 }).findNewestTurnResult(sid)).rejects.toMatchObject({
      status: 413,
      code: 'transcript_too_large',
      details: expect.objectContaining({ maxBytes: 100, snapshotSize: expect.any(Number) }),
    });
  });

  it('reports a file replaced during the scan as transcript_snapshot_unavailable', async () => {
    const t = new TranscriptBuilder(sid);
    t.turn('a');
    writeFileSync(path, t.toJsonl());
    const replace = () => {
      writeFileSync(`${path}.new`, '');
      renameSync(`${path}.new`, path);
    };
    await expect(duringScan(replace, () => scanner().findNewestTurnResult(sid))).rejects.toMatchObject({
      status: 409,
      code: 'transcript_snapshot_unavailable',
    });
  });

  it('reads from a snapshot: records appended during the scan are not seen', async () => {
    const t = new TranscriptBuilder(sid);
    t.turn('a');
    writeFileSync(path, t.toJsonl());
    const late = new TranscriptBuilder(sid);
    late.turnResult('late');
    await expect(
      duringScan(
        () => appendFileSync(path, late.toJsonl()),
        () => scanner().findNewestTurnResult(sid),
      ),
    ).resolves.toMatchObject({ promptId: 'a' });
  });

  it('finds a result whose line straddles two reads, and one in a read that holds nothing else of it', async () => {
    const t = new TranscriptBuilder(sid);
    t.turn('early');
    // Long records put 'early' in an older 256 KiB read than the head, and make some line span a read boundary.
    for (let i = 0; i < 40; i += 1) t.add({ message: { role: 'model', parts: [{ text: 'y'.repeat(9_973) }] } });
    t.turn('straddles');
    for (let i = 0; i < 30; i += 1) t.add({ message: { role: 'model', parts: [{ text: 'z'.repeat(10_007) }] } });
    writeFileSync(path, t.toJsonl());
    const scan = scanner();
    await expect(scan.findTurnResult(sid, 'early')).resolves.toMatchObject({ promptId: 'early' });
    await expect(scan.findTurnResult(sid, 'straddles')).resolves.toMatchObject({ promptId: 'straddles' });
    await expect(scan.findTurnResult(sid, 'absent')).resolves.toBeUndefined();
    // Every offset of the result line relative to the read boundary: it is found wherever it falls.
    for (let pad = 0; pad < 6; pad += 1) {
      const shifted = new TranscriptBuilder(sid);
      shifted.add({ message: { role: 'model', parts: [{ text: 'p'.repeat(256 * 1024 - 400 + pad * 70) }] } });
      shifted.turn('edge');
      shifted.add({ message: { role: 'model', parts: [{ text: 'q'.repeat(100) }] } });
      writeFileSync(path, shifted.toJsonl());
      await expect(scanner().findTurnResult(sid, 'edge')).resolves.toMatchObject({ promptId: 'edge' });
    }
  });

  it('costs what the window costs, not what the file weighs', async () => {
    const t = new TranscriptBuilder(sid);
    for (let i = 0; i < 20_000; i += 1) t.add({ message: { role: 'model', parts: [{ text: 'x'.repeat(1_000) }] } });
    t.turn('recent');
    writeFileSync(path, t.toJsonl()); // ~20 MiB
    const read = jest.spyOn(TranscriptSnapshot.prototype as unknown as { read: (o: number, l: number) => Promise<Buffer> }, 'read');
    try {
      await expect(scanner().findNewestTurnResult(sid)).resolves.toMatchObject({ promptId: 'recent' });
      const bytes = read.mock.calls.reduce((sum, [, length]) => sum + length, 0);
      expect(bytes).toBeLessThanOrEqual(256 * 1024 + 1); // a hit stops the walk: one 256 KiB chunk, not a page
      // A miss reads the window (10 pages of <= 4 MiB), never the whole file.
      read.mockClear();
      await expect(scanner({ recordsPerPage: 500 }).findTurnResult(sid, 'absent')).resolves.toBeUndefined();
      const missBytes = read.mock.calls.reduce((sum, [, length]) => sum + length, 0);
      // 10 pages x 500 records of ~1.1 KB, plus what the last read-ahead estimated: far below the ~22 MiB file.
      expect(missBytes).toBeLessThan(8 * 1024 * 1024);
    } finally {
      read.mockRestore();
    }
  });
});

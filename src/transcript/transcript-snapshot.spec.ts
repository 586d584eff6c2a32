import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LineTooLargeError } from './transcript-errors.js';
import { TranscriptSnapshot, type BatchOptions } from './transcript-snapshot.js';

type Read = (offset: number, length: number) => Promise<Buffer>;

/** A line that parses as a record, so a walk can hand its text back. */
const rec = (n: number, pad = '') => `{"uuid":"u${n}","parentUuid":null,"type":"user","pad":"${pad}"}`;

describe('TranscriptSnapshot.batchesBefore', () => {
  let dir: string;
  let path: string;
  const lines = Array.from({ length: 6_000 }, (_, i) => rec(i, 'x'.repeat(400)));
  const fileBytes = () => Buffer.byteLength(lines.join('\n')) + 1;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'turns-snapshot-'));
    path = join(dir, 'a.jsonl');
    writeFileSync(path, `${lines.join('\n')}\n`); // ~2.6 MiB: several reads
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const read = (TranscriptSnapshot.prototype as unknown as { read: Read }).read;

  /** Walks `file` backward, recording each read; `failRead` n makes the n-th read fail. */
  async function walk(file: string, maxLineBytes: number, options: BatchOptions = {}, stopAfter = Infinity, failRead = 0) {
    const reads: [number, number][] = [];
    const spy = jest.spyOn(TranscriptSnapshot.prototype as unknown as { read: Read }, 'read');
    spy.mockImplementation(function (this: unknown, offset: number, length: number) {
      reads.push([offset, length]);
      return reads.length === failRead ? Promise.reject(new Error('read failed')) : read.call(this, offset, length);
    });
    const snapshot = (await TranscriptSnapshot.open(file))!;
    const seen: Array<{ text: string | undefined; start: number; bytes: number }> = [];
    try {
      for await (const batch of snapshot.batchesBefore(snapshot.size, maxLineBytes, options)) {
        for (const line of batch) {
          seen.push({ text: line.record ? JSON.stringify(line.record) : undefined, start: line.start, bytes: line.bytes });
        }
        if (seen.length >= stopAfter) break;
      }
    } finally {
      spy.mockRestore();
      await snapshot.close();
    }
    return { seen, reads };
  }
  const total = (reads: [number, number][]) => reads.reduce((sum, [, length]) => sum + length, 0);

  it('hands over every line newest first with its offset, with and without read-ahead, each byte read once', async () => {
    const plain = await walk(path, 1_000_000);
    const ahead = await walk(path, 1_000_000, { bytesWanted: () => Infinity });
    expect(plain.seen.map((l) => l.text)).toEqual([...lines].reverse());
    expect(ahead.seen).toEqual(plain.seen);
    expect(plain.seen[0]!.start + plain.seen[0]!.bytes).toBe(fileBytes());
    expect(plain.seen.at(-1)!.start).toBe(0);
    expect(total(plain.reads)).toBe(fileBytes());
    expect(total(ahead.reads)).toBe(fileBytes());
  });

  it('reads ahead only what the walker expects to need, and only past the first read', async () => {
    const none = await walk(path, 1_000_000, { bytesWanted: () => 0 }, 1_500);
    const some = await walk(path, 1_000_000, { bytesWanted: () => 600_000 }, 1_500);
    // 1,500 lines of ~450 bytes: two reads (256 + 512 KiB) cover them.
    expect(none.reads.map(([, length]) => length)).toEqual([256 * 1024, 512 * 1024]);
    // The read-ahead started during the second batch: at most 1/8 over what the walker asked beyond it.
    expect(some.reads).toHaveLength(3);
    expect(some.reads[2]![1]).toBeLessThanOrEqual(Math.ceil((600_000 - 512 * 1024) * 1.125));
    expect(some.reads[2]![0] + some.reads[2]![1]).toBe(some.reads[1]![0]);
  });

  it('leaves no unhandled rejection when a read ahead fails after the walk stopped', async () => {
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown) => rejections.push(reason);
    process.on('unhandledRejection', onRejection);
    try {
      const { seen, reads } = await walk(path, 1_000_000, { bytesWanted: () => Infinity }, 1_500, 3);
      expect(seen.length).toBeGreaterThanOrEqual(1_500);
      expect(reads).toHaveLength(3); // the third was read ahead and never walked
      await new Promise((resolve) => setImmediate(resolve));
      expect(rejections).toEqual([]);
    } finally {
      process.off('unhandledRejection', onRejection);
    }
  });

  it('throws for a line over the limit, or hands it over without data when asked to skip it', async () => {
    const big = join(dir, 'big.jsonl');
    writeFileSync(big, `${rec(0)}\n${rec(1, 'y'.repeat(600_000))}\n`);
    appendFileSync(big, `${rec(2)}\n`);
    await expect(walk(big, 100_000)).rejects.toBeInstanceOf(LineTooLargeError);
    const { seen } = await walk(big, 100_000, { skipOversized: true });
    expect(seen.map((l) => l.text)).toEqual([rec(2), undefined, rec(0)]);
  });
});

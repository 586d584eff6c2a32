import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TranscriptSnapshot } from './transcript-snapshot.js';

type Read = (offset: number, length: number) => Promise<Buffer>;

describe('TranscriptSnapshot.batchesBefore', () => {
  let dir: string;
  let path: string;
  const lines = Array.from({ length: 6_000 }, (_, i) => `{"n":${i},"pad":"${'x'.repeat(400)}"}`);

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'turns-snapshot-'));
    path = join(dir, 'a.jsonl');
    writeFileSync(path, `${lines.join('\n')}\n`); // ~2.4 MiB: several reads
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const read = (TranscriptSnapshot.prototype as unknown as { read: Read }).read;

  /** Walks the file, recording each read; `failRead` n makes the n-th read fail. */
  async function walk(options: Parameters<TranscriptSnapshot['batchesBefore']>[2], stopAfter = Infinity, failRead = 0) {
    const reads: [number, number][] = [];
    const spy = jest.spyOn(TranscriptSnapshot.prototype as unknown as { read: Read }, 'read');
    spy.mockImplementation(function (this: unknown, offset: number, length: number) {
      reads.push([offset, length]);
      return reads.length === failRead ? Promise.reject(new Error('read failed')) : read.call(this, offset, length);
    });
    const snapshot = (await TranscriptSnapshot.open(path))!;
    const seen: string[] = [];
    try {
      for await (const batch of snapshot.batchesBefore(snapshot.size, 1_000_000, options)) {
        for (const line of batch) seen.push(line.text()!);
        if (seen.length >= stopAfter) break;
      }
    } finally {
      spy.mockRestore();
      await snapshot.close();
    }
    return { seen, reads };
  }

  it('hands over every line newest first, with and without read-ahead, the trailing newline closing the last', async () => {
    const plain = await walk({});
    const ahead = await walk({ bytesWanted: () => Infinity });
    expect(plain.seen).toEqual([...lines].reverse());
    expect(ahead.seen).toEqual(plain.seen);
    // Each byte is read once either way.
    const total = (reads: [number, number][]) => reads.reduce((sum, [, length]) => sum + length, 0);
    expect(total(plain.reads)).toBe(Buffer.byteLength(lines.join('\n')) + 1);
    expect(total(ahead.reads)).toBe(total(plain.reads));
  });

  it('reads ahead only what the walker expects to need, and only past the first read', async () => {
    const none = await walk({ bytesWanted: () => 0 }, 1_500);
    const some = await walk({ bytesWanted: () => 600_000 }, 1_500);
    // 1,500 lines of ~415 bytes: two reads (256 + 512 KiB) cover them.
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
      const { seen, reads } = await walk({ bytesWanted: () => Infinity }, 1_500, 3);
      expect(seen.length).toBeGreaterThanOrEqual(1_500);
      expect(reads).toHaveLength(3); // the third was read ahead and never walked
      await new Promise((resolve) => setImmediate(resolve));
      expect(rejections).toEqual([]);
    } finally {
      process.off('unhandledRejection', onRejection);
    }
  });
});

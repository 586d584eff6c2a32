import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LineTooLargeError } from './transcript-errors.js';
import { TranscriptSnapshot } from './transcript-snapshot.js';

type Read = (offset: number, length: number) => Promise<Buffer>;

/** A line that parses as a record, so a walk can hand its text back. */
const rec = (n: number, pad = '') => `{"uuid":"u${n}","parentUuid":null,"type":"user","pad":"${pad}"}`;

describe('TranscriptSnapshot.batchesBefore', () => {
  let dir: string;
  let path: string;
  const lines = Array.from({ length: 6_000 }, (_, i) => rec(i, 'x'.repeat(400)));

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'turns-snapshot-'));
    path = join(dir, 'a.jsonl');
    writeFileSync(path, `${lines.join('\n')}\n`); // ~2.4 MiB: several reads
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const read = (TranscriptSnapshot.prototype as unknown as { read: Read }).read;

  /** Walks `file` backward, recording each read. */
  async function walk(file: string, maxLineBytes: number, skipOversized = false) {
    const reads: [number, number][] = [];
    const spy = jest.spyOn(TranscriptSnapshot.prototype as unknown as { read: Read }, 'read');
    spy.mockImplementation(function (this: unknown, offset: number, length: number) {
      reads.push([offset, length]);
      return read.call(this, offset, length);
    });
    const snapshot = (await TranscriptSnapshot.open(file))!;
    const seen: Array<{ text: string | undefined; start: number; bytes: number }> = [];
    try {
      for await (const line of snapshot.linesBefore(snapshot.size, maxLineBytes, skipOversized)) {
        seen.push({ text: line.record ? JSON.stringify(line.record) : undefined, start: line.start, bytes: line.bytes });
      }
    } finally {
      spy.mockRestore();
      await snapshot.close();
    }
    return { seen, reads };
  }

  it('hands over every line newest first, with its offset, each byte read once', async () => {
    const { seen, reads } = await walk(path, 1_000_000);
    expect(seen.map((l) => l.text)).toEqual([...lines].reverse());
    expect(seen[0]!.start + seen[0]!.bytes).toBe(Buffer.byteLength(lines.join('\n')) + 1);
    expect(seen.at(-1)!.start).toBe(0);
    expect(reads.reduce((sum, [, length]) => sum + length, 0)).toBe(Buffer.byteLength(lines.join('\n')) + 1);
  });

  it('throws for a line over the limit, or hands it over without data when asked to skip it', async () => {
    const big = join(dir, 'big.jsonl');
    writeFileSync(big, `${rec(0)}\n${rec(1, 'y'.repeat(600_000))}\n`);
    appendFileSync(big, `${rec(2)}\n`);
    await expect(walk(big, 100_000)).rejects.toBeInstanceOf(LineTooLargeError);
    const { seen } = await walk(big, 100_000, true);
    expect(seen.map((l) => l.text)).toEqual([rec(2), undefined, rec(0)]);
  });
});

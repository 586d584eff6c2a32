import fc from 'fast-check';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ActiveChain } from './active-chain.js';
import { parseRecord } from './transcript-record.js';
import { TranscriptSnapshot } from './transcript-snapshot.js';

/** How one line of a generated transcript is written. */
type Layout = 'ours' | 'foreign' | 'escaped-head' | 'garbage';

interface Line {
  layout: Layout;
  /** The parent: null (a root), or how many records back (0 = the previous one). */
  back: number | null;
  /** The id's style: plain, non-ASCII, or one that needs an escape in JSON. */
  style: 'plain' | 'unicode' | 'quote';
}

const idOf = (i: number, style: Line['style']) => (style === 'plain' ? `n-${i}` : style === 'unicode' ? `ü-${i}` : `q"${i}`);

/** The transcript's lines, and each valid record's uuid in order (parents are chosen among them). */
function render(lines: Line[]): string[] {
  const ids: string[] = [];
  return lines.map(({ layout, back, style }, n) => {
    if (layout === 'garbage') return n % 2 ? 'not json' : '{"type":"user","uuid":';
    const uuid = idOf(ids.length, style);
    const parentUuid = back === null || ids.length === 0 ? null : ids[Math.max(0, ids.length - 1 - back)]!;
    ids.push(uuid);
    if (layout === 'foreign') return JSON.stringify({ type: 'user', n, parentUuid, uuid });
    const text = JSON.stringify({ uuid, parentUuid, sessionId: 's', timestamp: 't', type: 'user', n });
    // The uuid's first character written as a \u escape, where our head is read in place.
    if (layout === 'escaped-head')
      return text.replace(
        `{"uuid":"${JSON.stringify(uuid).slice(1, 2)}`,
        `{"uuid":"\\u${uuid.charCodeAt(0).toString(16).padStart(4, '0')}`,
      );
    return text;
  });
}

/** The active chain by the book: parse every line, walk parentUuid back from the last record. */
function chainByParsing(text: string[]): number[] {
  const chain: number[] = [];
  let expected: string | null | undefined;
  for (let i = text.length - 1; i >= 0 && expected !== null; i -= 1) {
    const record = parseRecord(text[i]!);
    if (!record || (expected !== undefined && record.uuid !== expected)) continue;
    chain.push((record as unknown as { n: number }).n);
    expected = record.parentUuid;
  }
  return chain;
}

describe('ActiveChain.find', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'turns-chain-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('walks exactly the chain a full parse finds: branches, foreign layouts, escapes, non-ASCII ids, garbage lines', async () => {
    const line = fc.record({
      layout: fc.constantFrom<Layout>('ours', 'ours', 'ours', 'foreign', 'escaped-head', 'garbage'),
      back: fc.option(fc.nat(4), { freq: 12, nil: null }),
      style: fc.constantFrom<Line['style']>('plain', 'plain', 'unicode', 'quote'),
    });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(line, { minLength: 1, maxLength: 60 }), async (lines) => {
        const text = render(lines);
        const path = join(dir, `t${(run += 1)}.jsonl`);
        writeFileSync(path, `${text.join('\n')}\n`);
        const snapshot = (await TranscriptSnapshot.open(path))!;
        const walked: number[] = [];
        try {
          const hit = await new ActiveChain(snapshot).find({ records: 1_000, bytes: 1 << 20 }, 1, {
            needle: Buffer.from('"uuid"'), // every record holds it
            accept: (record) => {
              walked.push((record as unknown as { n: number }).n);
              return false;
            },
          });
          expect(hit).toBeUndefined();
        } finally {
          await snapshot.close();
        }
        expect(walked).toEqual(chainByParsing(text));
      }),
      { numRuns: 300 },
    );
  });
});

describe('ActiveChain.head and fences', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'turns-head-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const record = (uuid: string, parentUuid: string | null, fence?: number, marker = false) =>
    JSON.stringify({
      uuid,
      parentUuid,
      sessionId: 's',
      timestamp: 't',
      type: marker ? 'system' : 'user',
      ...(marker && { subtype: 'fence', systemPayload: { fence } }),
      ...(fence !== undefined && { fence }),
    });
  const headOf = async (lines: string[]) => {
    const path = join(dir, `h${lines.length}-${Math.random()}.jsonl`);
    writeFileSync(path, `${lines.join('\n')}\n`);
    const snapshot = (await TranscriptSnapshot.open(path))!;
    try {
      return await new ActiveChain(snapshot).head(1 << 20, 1 << 20);
    } finally {
      await snapshot.close();
    }
  };

  it('is the last record of a file without fences (a single daemon)', async () => {
    expect(await headOf([record('a', null), record('b', 'a')])).toBe('b');
  });

  it("passes over a stale owner's lines that landed after a newer claim's marker", async () => {
    const owner3 = [record('m3', null, 3, true), record('a', 'm3', 3)];
    expect(await headOf([...owner3, record('m5', 'a', 5, true), record('stale', 'a', 3)])).toBe('m5');
    expect(
      await headOf([...owner3, record('m5', 'a', 5, true), record('stale', 'a', 3), record('b', 'm5', 5), record('late', 'a', 3)]),
    ).toBe('b');
  });

  it("keeps what an owner wrote before the next claim's marker (its history)", async () => {
    expect(await headOf([record('m3', null, 3, true), record('a', 'm3', 3), record('b', 'a', 3)])).toBe('b');
  });
});

import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeLargeTranscript } from '../../test/support/transcript-generator.js';
import { ActiveChainReader } from './active-chain-reader.js';
import type { TranscriptRecord } from './transcript-record.js';

describe('ActiveChainReader', () => {
  let dir: string;
  const id = randomUUID();
  const records = (path: string): TranscriptRecord[] =>
    readFileSync(path, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as TranscriptRecord);

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'chain-reader-'));
  });

  it('answers undefined for a transcript that does not exist, and writes no copy of it', async () => {
    const reader = new ActiveChainReader();
    const missing = join(dir, 'missing.jsonl');
    await expect(reader.head(id, missing)).resolves.toBeUndefined();
    await expect(reader.userPrompts(id, missing)).resolves.toBeUndefined();
    await expect(reader.copy(id, missing, join(dir, 'copy.jsonl'), randomUUID())).resolves.toBeUndefined();
    expect(() => readFileSync(join(dir, 'copy.jsonl'))).toThrow();
  });

  it("walks the chain: its head, its prompts, a prompt's user record, and a copy without turn_result records", async () => {
    const path = join(dir, `${id}.jsonl`);
    const promptIds = writeLargeTranscript(path, id, 3, 10);
    const reader = new ActiveChainReader();
    await expect(reader.head(id, path)).resolves.toBe(records(path).at(-1)!.uuid);
    expect((await reader.userPrompts(id, path))!.map((p) => p.promptId)).toEqual(promptIds);
    await expect(reader.userRecordOf(id, path, promptIds[1]!)).resolves.toMatchObject({ type: 'user', promptId: promptIds[1] });
    const forkId = randomUUID();
    const target = join(dir, 'fork', `${forkId}.jsonl`);
    await reader.copy(id, path, target, forkId);
    const copied = records(target);
    expect(copied.map((r) => r.type)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
    expect(copied.every((r) => r.sessionId === forkId)).toBe(true);
    // Never over an existing file.
    await expect(reader.copy(id, path, target, forkId)).rejects.toMatchObject({ code: 'EEXIST' });
  });

  it('answers 413 transcript_too_large for every walk of a transcript over the bound', async () => {
    const path = join(dir, `${id}.jsonl`);
    const [first] = writeLargeTranscript(path, id, 5, 4_000);
    const reader = new ActiveChainReader(10_000);
    const tooLarge = { status: 413, code: 'transcript_too_large', details: expect.objectContaining({ maxBytes: 10_000 }) };
    await expect(reader.head(id, path)).rejects.toMatchObject(tooLarge);
    await expect(reader.userRecordOf(id, path, first!)).rejects.toMatchObject(tooLarge);
    await expect(reader.rewindFacts(id, path, new Set())).rejects.toMatchObject(tooLarge);
    await expect(reader.copy(id, path, join(dir, 'copy.jsonl'), randomUUID())).rejects.toMatchObject(tooLarge);
  });

  it('answers 409 transcript_unavailable for a transcript that is not a regular file', async () => {
    const target = join(dir, 'victim.txt');
    writeFileSync(target, 'precious\n');
    const link = join(dir, 'link.jsonl');
    symlinkSync(target, link);
    mkdirSync(join(dir, 'directory.jsonl'));
    const reader = new ActiveChainReader();
    for (const path of [link, join(dir, 'directory.jsonl')]) {
      await expect(reader.head(id, path)).rejects.toMatchObject({ status: 409, code: 'transcript_unavailable' });
    }
  });
});

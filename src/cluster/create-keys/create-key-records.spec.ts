import { mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateKeyRecords, parseCreateKeyRecord, type CreateKeyRecord } from './create-key-records.js';

const NAME = 'a'.repeat(64);
const record = (sessionId: string, expiresAt: number, fingerprint = 'f1'): CreateKeyRecord => ({
  fingerprint,
  answer: { status: 200, body: { sessionId, clientId: 'c' } },
  expiresAt,
});

describe('parseCreateKeyRecord', () => {
  it('reads a record back, and refuses what is not one (never taken for "none")', () => {
    expect(parseCreateKeyRecord(JSON.stringify(record('s', 5)))).toEqual(record('s', 5));
    expect(() => parseCreateKeyRecord('')).toThrow();
    expect(() => parseCreateKeyRecord('null')).toThrow('unreadable');
    expect(() => parseCreateKeyRecord('{"fingerprint":"f","expiresAt":1,"answer":{"status":200}}')).toThrow('unreadable');
  });
});

describe('CreateKeyRecords (a real directory)', () => {
  let dataDir: string;
  let now: number;
  const records = () => new CreateKeyRecords(dataDir, () => now, 1_000);
  const dir = () => join(dataDir, 'cluster', 'idempotency');

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'turns-create-keys-'));
    now = 10_000;
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('writes a record under its hash only, and reads it back; none is undefined', async () => {
    const store = records();
    await expect(store.read(NAME)).resolves.toBeUndefined();
    await expect(store.write(NAME, record('s1', 20_000))).resolves.toEqual(record('s1', 20_000));
    await expect(records().read(NAME)).resolves.toEqual(record('s1', 20_000));
    expect(readdirSync(dir())).toEqual([NAME]);
    // A raw key never becomes a path.
    await expect(store.write('../k', record('s1', 20_000))).rejects.toThrow('invalid');
  });

  it('the first record wins: a later write gets the first back and leaves it in place', async () => {
    await records().write(NAME, record('s1', 20_000));
    await expect(records().write(NAME, record('s2', 30_000))).resolves.toEqual(record('s1', 20_000));
    expect(JSON.parse(readFileSync(join(dir(), NAME), 'utf8'))).toEqual(record('s1', 20_000));
    expect(readdirSync(dir())).toEqual([NAME]);
  });

  it('an expired record reads as none and is replaced by the next write', async () => {
    await records().write(NAME, record('s1', 20_000));
    now = 20_000;
    await expect(records().read(NAME)).resolves.toBeUndefined();
    await expect(records().write(NAME, record('s2', 30_000))).resolves.toEqual(record('s2', 30_000));
    await expect(records().read(NAME)).resolves.toEqual(record('s2', 30_000));
  });

  it('an unreadable record is an error, and a write that fails is one too', async () => {
    await records().write(NAME, record('s1', 20_000));
    writeFileSync(join(dir(), NAME), '{');
    await expect(records().read(NAME)).rejects.toThrow();
    rmSync(dir(), { recursive: true });
    writeFileSync(dir(), 'not a directory');
    await expect(records().write(NAME, record('s1', 20_000))).rejects.toMatchObject({ code: 'EEXIST' });
  });

  it('a sweep looks at a bounded batch a pass, going on where the last one stopped', async () => {
    const store = records();
    for (let i = 0; i < 1_001; i++) await store.write(i.toString(16).padStart(64, '0'), record('s', 20_000));
    expect(await store.sweep(now)).toBe(0); // all live: the first thousand looked at
    now = 30_000;
    expect(await store.sweep(now)).toBe(1); // the one left, not the first thousand again
    expect(await store.sweep(now)).toBe(1_000);
    expect(readdirSync(dir())).toEqual([]);
  });

  it('a sweep removes records expired a sweep ago and temp files and marks left as long, nothing live', async () => {
    const store = records();
    await store.write('b'.repeat(64), record('old', 5_000));
    await store.write('c'.repeat(64), record('recent', 9_500));
    await store.write(NAME, record('live', 20_000));
    const temp = join(dir(), `${NAME}.${'0'.repeat(8)}-0000-0000-0000-${'0'.repeat(12)}.tmp`);
    writeFileSync(temp, '');
    utimesSync(temp, 1, 1);
    const [oldMark, freshMark] = [`${'d'.repeat(64)}.mark`, `${'e'.repeat(64)}.mark`];
    writeFileSync(join(dir(), oldMark), 'm');
    utimesSync(join(dir(), oldMark), 1, 1);
    writeFileSync(join(dir(), freshMark), 'm');
    utimesSync(join(dir(), freshMark), 9.5, 9.5);
    expect(await store.sweep(now)).toBe(3);
    expect(readdirSync(dir()).sort()).toEqual([NAME, 'c'.repeat(64), freshMark]);
  });
});

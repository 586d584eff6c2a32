import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateKeyMarks, isStaleMark } from './create-key-marks.js';

const NAME = 'a'.repeat(64);

describe('isStaleMark', () => {
  it('is stale only once untouched for longer than staleMs', () => {
    expect(isStaleMark(1_000, 3_000, 2_000)).toBe(false);
    expect(isStaleMark(1_000, 3_001, 2_000)).toBe(true);
    // A mark stamped ahead of this node's clock is fresh.
    expect(isStaleMark(5_000, 3_000, 2_000)).toBe(false);
  });
});

describe('CreateKeyMarks (a real directory)', () => {
  let dir: string;
  let now: number;
  const marks = () => new CreateKeyMarks(dir, 2_000, () => now);

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'turns-create-marks-'));
    now = 1_700_000_000_000;
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('one holder: a second claim gets the live mark, a release by another leaves it', async () => {
    await expect(marks().claim(NAME, 'm1')).resolves.toEqual({ claimed: true });
    await expect(marks().claim(NAME, 'm2')).resolves.toEqual({ claimed: false, held: 'm1' });
    await marks().release(NAME, 'm2');
    expect(readFileSync(join(dir, `${NAME}.mark`), 'utf8')).toBe('m1');
    await marks().release(NAME, 'm1');
    expect(readdirSync(dir)).toEqual([]);
    await expect(marks().claim(NAME, 'm2')).resolves.toEqual({ claimed: true });
    // A raw key never becomes a path.
    await expect(marks().claim('../k', 'm')).rejects.toThrow('invalid');
  });

  it('judges the age in the whole ms it was stamped with, not the µs under it a file time reads back with', async () => {
    now = 1_796_323_402_494; // stat gives …493.999: 2 000.001 ms old at now + 2 000
    await marks().claim(NAME, 'm1');
    now += 2_000;
    await expect(marks().claim(NAME, 'm2')).resolves.toEqual({ claimed: false, held: 'm1' });
  });

  it('a mark untouched for longer than staleMs is taken over; a touched one is not', async () => {
    await marks().claim(NAME, 'm1');
    now += 1_500;
    await expect(marks().touch(NAME, 'm1')).resolves.toBe(true);
    now += 2_000;
    await expect(marks().claim(NAME, 'm2')).resolves.toEqual({ claimed: false, held: 'm1' });
    now += 1;
    await expect(marks().claim(NAME, 'm2')).resolves.toEqual({ claimed: true });
    // The old holder learns it lost the mark, and its release leaves the new one.
    await expect(marks().touch(NAME, 'm1')).resolves.toBe(false);
    await marks().release(NAME, 'm1');
    expect(readdirSync(dir)).toEqual([`${NAME}.mark`]);
    expect(readFileSync(join(dir, `${NAME}.mark`), 'utf8')).toBe('m2');
  });
});

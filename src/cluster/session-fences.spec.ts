import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionFences } from './session-fences.js';

const S1 = '11111111-1111-4111-8111-111111111111';
const S2 = '22222222-2222-4222-8222-222222222222';

describe('SessionFences', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'fences-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('is 0 for a session never claimed, and the recorded fence afterwards (per session)', async () => {
    const fences = new SessionFences(dataDir);
    expect(await fences.highest(S1)).toBe(0);
    await fences.record(S1, 7);
    expect(await fences.highest(S1)).toBe(7);
    expect(await fences.highest(S2)).toBe(0);
  });

  it('only ever raises a fence, and leaves no temporary file behind', async () => {
    const fences = new SessionFences(dataDir);
    await fences.record(S1, 7);
    await fences.record(S1, 3);
    expect(await fences.highest(S1)).toBe(7);
    await fences.record(S1, 9);
    expect(await new SessionFences(dataDir).highest(S1)).toBe(9);
    expect(readdirSync(join(dataDir, 'cluster', 'fences'))).toEqual([S1]);
  });

  it('refuses an id that could escape the directory', async () => {
    await expect(new SessionFences(dataDir).record('../../etc/passwd', 1)).rejects.toThrow('invalid session id');
  });

  it('without a data dir records nothing and reports 0', async () => {
    const fences = new SessionFences();
    await fences.record(S1, 5);
    expect(await fences.highest(S1)).toBe(0);
  });
});

import fc from 'fast-check';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { deferred } from '../../../test/support/deferred.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { highestFenceOf, holderOf, SessionFences } from './session-fences.js';

/** Every directory opened to be synced (syncDirectory opens it read-only), in order. */
const synced: string[] = [];
/** While set, a fence file's write says it began (`reached`) and waits: what a reader sees meanwhile. */
let heldWrite: { reached: () => void; until: Promise<void> } | undefined;
/** Errors the next reads of fence files (not of the earlier layout's) fail with, one each. */
const failedReads: NodeJS.ErrnoException[] = [];
jest.mock('node:fs/promises', () => {
  const actual = jest.requireActual('node:fs/promises');
  return {
    ...actual,
    open: async (...args: Parameters<typeof actual.open>) => {
      if (args[1] === 'r') synced.push(String(args[0]));
      const handle = await actual.open(...args);
      const writeFile = handle.writeFile.bind(handle);
      handle.writeFile = async (...rest: unknown[]) => {
        if (heldWrite) {
          heldWrite.reached();
          await heldWrite.until;
        }
        return writeFile(...rest);
      };
      return handle;
    },
    readFile: async (...args: Parameters<typeof actual.readFile>) => {
      const failure = String(args[0]).includes('fence-files') ? failedReads.shift() : undefined;
      if (failure) throw failure;
      return actual.readFile(...args);
    },
  };
});
const errno = (code: string) => Object.assign(new Error(code), { code });

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

  it("syncs the directories a record makes, each in its parent, and the fence's own directory", async () => {
    const fences = new SessionFences(dataDir);
    synced.length = 0;
    await fences.record(S1, 7);
    const files = join(dataDir, 'cluster', 'fence-files');
    expect([...synced].sort()).toEqual([dataDir, join(dataDir, 'cluster'), files, join(files, S1)].sort());
    synced.length = 0;
    await fences.record(S1, 8);
    expect(synced).toEqual([join(files, S1)]);
  });

  it('only ever raises a fence, one file per fence, the lower ones pruned', async () => {
    const fences = new SessionFences(dataDir);
    await fences.record(S1, 7);
    await fences.record(S1, 3);
    expect(await fences.highest(S1)).toBe(7);
    await fences.record(S1, 9);
    expect(await new SessionFences(dataDir).highest(S1)).toBe(9);
    expect(readdirSync(join(dataDir, 'cluster', 'fence-files', S1))).toEqual(['000000000000009']);
  });

  it('never decreases under concurrent records, whatever their order (property)', async () => {
    let round = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.integer({ min: 1, max: 1_000 }), { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 4 }),
        async (waves) => {
          const fences = new SessionFences(join(dataDir, `round-${round++}`));
          let floor = 0;
          for (const wave of waves) {
            // Each wave races its records; a reader in between never sees the fence go down.
            const seen: number[] = [];
            await Promise.all([
              ...wave.map((fence) => fences.record(S1, fence)),
              ...wave.map(() => fences.highest(S1).then((f) => seen.push(f))),
            ]);
            for (const fence of seen) expect(fence).toBeGreaterThanOrEqual(floor);
            floor = Math.max(floor, ...wave);
            expect(await fences.highest(S1)).toBe(floor);
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it('an unreadable fence is an error, never 0: an empty or garbled file of the earlier layout, a directory it cannot list', async () => {
    const legacy = join(dataDir, 'cluster', 'fences');
    mkdirSync(legacy, { recursive: true });
    writeFileSync(join(legacy, S1), '');
    await expect(new SessionFences(dataDir).highest(S1)).rejects.toThrow('unreadable fence');
    writeFileSync(join(legacy, S1), 'twelve\n');
    await expect(new SessionFences(dataDir).highest(S1)).rejects.toThrow('unreadable fence');
    // A file where the session's directory should be: not a listing, not 0.
    mkdirSync(join(dataDir, 'cluster', 'fence-files'), { recursive: true });
    writeFileSync(join(dataDir, 'cluster', 'fence-files', S2), '5');
    await expect(new SessionFences(dataDir).highest(S2)).rejects.toMatchObject({ code: 'ENOTDIR' });
  });

  it('reads the fence an earlier version recorded in one file, and claims above it', async () => {
    const legacy = join(dataDir, 'cluster', 'fences');
    mkdirSync(legacy, { recursive: true });
    writeFileSync(join(legacy, S1), '12\n');
    const fences = new SessionFences(dataDir);
    expect(await fences.highest(S1)).toBe(12);
    await fences.record(S1, 10);
    expect(await fences.highest(S1)).toBe(12);
    await fences.record(S1, 13);
    expect(await fences.highest(S1)).toBe(13);
  });

  it('refuses an id that could escape the directory, and a fence that is not a positive integer', async () => {
    await expect(new SessionFences(dataDir).record('../../etc/passwd', 1)).rejects.toThrow('invalid session id');
    await expect(new SessionFences(dataDir).record(S1, 0)).rejects.toThrow('invalid fence');
  });

  it('names the claiming node and its URL in the fence file, synced with it; the latest record reads it back', async () => {
    const fences = new SessionFences(dataDir);
    expect(await fences.latest(S1)).toEqual({ fence: 0 });
    await fences.record(S1, 4, { node: 'node-a', url: 'http://10.0.0.5:4170' });
    expect(await fences.latest(S1)).toEqual({ fence: 4, holder: { node: 'node-a', url: 'http://10.0.0.5:4170' } });
    await fences.record(S1, 6);
    // A file without a holder (an earlier version's): the fence counts, the holder is unknown.
    expect(await fences.latest(S1)).toEqual({ fence: 6, holder: undefined });
  });

  it('a fence is never found without its holder, even while its record is being written', async () => {
    const fences = new SessionFences(dataDir);
    await fences.record(S1, 4, { node: 'node-a', url: 'http://a' });
    const reached = deferred<void>();
    const until = deferred<void>();
    heldWrite = { reached: () => reached.resolve(), until: until.promise };
    try {
      const recording = fences.record(S1, 5, { node: 'node-b', url: 'http://b' });
      await reached.promise;
      // The write has begun and waits: the record read is the one before, or the new one whole.
      expect(await fences.latest(S1)).toEqual({ fence: 4, holder: { node: 'node-a', url: 'http://a' } });
      until.resolve();
      await recording;
    } finally {
      heldWrite = undefined;
      until.resolve();
    }
    expect(await fences.latest(S1)).toEqual({ fence: 5, holder: { node: 'node-b', url: 'http://b' } });
    expect(readdirSync(join(dataDir, 'cluster', 'fence-files', S1))).toEqual(['000000000000005']);
  });

  it('reads the next fence when the one it listed was pruned meanwhile; any other failure to read the holder is an error', async () => {
    const fences = new SessionFences(dataDir);
    await fences.record(S1, 5, { node: 'node-b', url: 'http://b' });
    failedReads.push(errno('ENOENT'));
    expect(await fences.latest(S1)).toEqual({ fence: 5, holder: { node: 'node-b', url: 'http://b' } });
    failedReads.push(errno('EACCES'));
    await expect(fences.latest(S1)).rejects.toMatchObject({ code: 'EACCES' });
  });

  it('prunes a pending file of a lower fence a crash left, whatever its age, and never reads one', async () => {
    const fences = new SessionFences(dataDir);
    await fences.record(S1, 4);
    const dir = join(dataDir, 'cluster', 'fence-files', S1);
    const pending = (fence: string) => `.${fence}.${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}.tmp`;
    const [higher, lower] = [pending('000000000000009'), pending('000000000000005')];
    writeFileSync(join(dir, higher), '{"node":"node-x","url":"http://x"}');
    writeFileSync(join(dir, lower), '{"node":"node-y","url":"http://y"}');
    expect(await fences.latest(S1)).toEqual({ fence: 4, holder: undefined });
    await fences.record(S1, 6);
    expect(readdirSync(dir).sort()).toEqual([higher, '000000000000006']);
    await fences.record(S1, 10);
    expect(readdirSync(dir)).toEqual(['000000000000010']);
  });

  it('reads a holder only from a whole record: empty, torn or foreign text names nobody', () => {
    expect(holderOf('{"node":"node-a","url":"http://a"}')).toEqual({ node: 'node-a', url: 'http://a' });
    expect(holderOf('')).toBeUndefined();
    expect(holderOf('{"node":"node-a","ur')).toBeUndefined();
    expect(holderOf('{"node":1,"url":"http://a"}')).toBeUndefined();
    expect(holderOf('null')).toBeUndefined();
  });

  it('without a data dir records nothing and reports 0', async () => {
    const fences = new SessionFences();
    await fences.record(S1, 5);
    expect(await fences.highest(S1)).toBe(0);
  });

  it('the highest name wins; names that are not fences are not read', () => {
    expect(highestFenceOf(['000000000000003', '000000000000011', 'x.tmp', '12'])).toBe(11);
    expect(highestFenceOf([])).toBe(0);
  });
});

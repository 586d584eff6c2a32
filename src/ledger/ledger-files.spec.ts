import type { Logger } from '@nestjs/common';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { deferred, settle } from '../../test/support/deferred.js';
import { tempDir } from '../../test/support/test-daemon.js';
import { LedgerFiles } from './ledger-files.js';
import { inFlightRecord, reconciledRecordOf } from './ledger-record.js';
import { readLedgerTail } from './ledger-tail.js';

// Every read of a ledger file is counted (the real read runs).
jest.mock('./ledger-tail.js', () => {
  const actual = jest.requireActual('./ledger-tail.js');
  return { ...actual, readLedgerTail: jest.fn(actual.readLedgerTail) };
});
const reads = readLedgerTail as jest.MockedFunction<typeof readLedgerTail>;

describe('LedgerFiles', () => {
  let dir: string;
  let paths: Map<string, string>;
  let warned: string[];
  const logger = { warn: (line: string) => void warned.push(line) } as unknown as Logger;
  const make = (
    mayWrite: (sessionId: string) => boolean | Promise<boolean> = () => true,
    fenceOf?: (sessionId: string) => number | undefined,
  ) => new LedgerFiles((sessionId) => paths.get(sessionId), mayWrite, logger, fenceOf);
  const promptsIn = (path: string) =>
    readFileSync(path, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => (JSON.parse(line) as { promptId: string }).promptId);

  beforeEach(() => {
    dir = tempDir('ledger-files-');
    paths = new Map([['s', join(dir, 's.ledger.jsonl')]]);
    warned = [];
    reads.mockClear();
  });

  it('writes appends in the order issued, and keeps the parsed tail until the next append', async () => {
    const files = make();
    for (const promptId of ['a', 'b', 'c']) files.append('s', inFlightRecord(promptId, 1));
    await files.flush('s');
    expect(promptsIn(paths.get('s')!)).toEqual(['a', 'b', 'c']);
    const [first, second] = await Promise.all([files.view('s'), files.view('s')]);
    expect(first).toBe(second);
    expect([...first.latest.keys()]).toEqual(['a', 'b', 'c']);
    await files.view('s');
    expect(reads).toHaveBeenCalledTimes(1);
    files.append('s', inFlightRecord('d', 2));
    await files.flush('s');
    expect((await files.view('s')).records).toHaveLength(4);
    expect(reads).toHaveBeenCalledTimes(2);
  });

  it('asks mayWrite before each write, also when the answer comes later, and refuses a fenced one (no warn: not a storage failure)', async () => {
    const answer = deferred<boolean>();
    const files = make((sessionId) => (sessionId === 's' ? answer.promise : true));
    const written = files.append('s', inFlightRecord('a', 1));
    answer.resolve(false);
    await expect(written).rejects.toMatchObject({ name: 'LedgerWriteError', reason: 'fenced' });
    await expect(files.view('s')).resolves.toMatchObject({ records: [] });
    expect(warned).toEqual([]);
  });

  it('group-commits: what is issued while a write is under way goes into the next, one fence check each side of one fdatasync for them all', async () => {
    const probe = await open(__filename, 'r');
    const datasync = jest.spyOn(Object.getPrototypeOf(probe) as { datasync(): Promise<void> }, 'datasync');
    await probe.close();
    try {
      const first = deferred<boolean>();
      const asked: number[] = [];
      const files = make(() => (asked.push(1), asked.length === 1 ? first.promise : true));
      const a = files.append('s', inFlightRecord('a', 1));
      await settle();
      const rest = ['b', 'c', 'd'].map((promptId) => files.append('s', inFlightRecord(promptId, 2)));
      first.resolve(true);
      await a;
      expect(datasync).toHaveBeenCalledTimes(1);
      await Promise.all(rest);
      expect(asked).toHaveLength(4);
      expect(datasync).toHaveBeenCalledTimes(2);
      expect(promptsIn(paths.get('s')!)).toEqual(['a', 'b', 'c', 'd']);
    } finally {
      datasync.mockRestore();
    }
  });

  it('resolves an append only after its fdatasync, and rejects it when the sync fails (the handle is not trusted again)', async () => {
    const probe = await open(__filename, 'r');
    const proto = Object.getPrototypeOf(probe) as { datasync(): Promise<void> };
    await probe.close();
    const eio = Object.assign(new Error('i/o'), { code: 'EIO' });
    const datasync = jest.spyOn(proto, 'datasync').mockRejectedValueOnce(eio);
    try {
      const files = make();
      await expect(files.append('s', inFlightRecord('a', 1))).rejects.toMatchObject({ reason: 'storage', code: 'EIO' });
      await expect(files.append('s', inFlightRecord('b', 2))).resolves.toBeUndefined();
      expect(datasync).toHaveBeenCalledTimes(2);
    } finally {
      datasync.mockRestore();
    }
  });

  it("carries the writer's fence on every line, behind a marker written before its first line or read", async () => {
    const files = make(undefined, () => 7);
    await files.view('s');
    await files.append('s', inFlightRecord('a', 1));
    const lines = readFileSync(paths.get('s')!, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    expect(lines).toEqual([
      { v: 1, fence: 7 },
      { ...inFlightRecord('a', 1), fence: 7 },
    ]);
  });

  it("skips a stale owner's line that lands after a newer claim's marker", async () => {
    const stale = make(undefined, () => 3);
    const owner = make(undefined, () => 5);
    await stale.append('s', inFlightRecord('a', 1));
    await owner.view('s');
    await stale.append('s', inFlightRecord('ghost', 2));
    await owner.append('s', inFlightRecord('b', 3));
    expect([...(await make().view('s')).latest.keys()]).toEqual(['a', 'b']);
  });

  it("refuses to acknowledge a stale owner's line that landed after a newer claim's marker: fenced once it is synced", async () => {
    // The stale owner's check is answered before the claim; its line lands after the new owner's marker.
    const checked = deferred<boolean>();
    let claimed = false;
    let asked = 0;
    const stale = make(
      () => (++asked === 1 ? checked.promise : !claimed),
      () => 3,
    );
    const owner = make(undefined, () => 5);
    const ghost = stale.append('s', inFlightRecord('ghost', 1));
    await settle();
    claimed = true;
    await owner.view('s');
    checked.resolve(true);
    await expect(ghost).rejects.toMatchObject({ name: 'LedgerWriteError', reason: 'fenced' });
    expect([...(await make().view('s')).latest.keys()]).toEqual([]);
  });

  it('rejects with the storage error when the write fails, and warns', async () => {
    writeFileSync(join(dir, 'not-a-dir'), '');
    paths.set('s', join(dir, 'not-a-dir', 's.ledger.jsonl'));
    await expect(make().append('s', inFlightRecord('a', 1))).rejects.toMatchObject({ reason: 'storage', code: 'EEXIST' });
    expect(warned).toHaveLength(1);
  });

  it('knows nothing of a session whose transcript is not recorded, and starts anew when its path moves', async () => {
    const files = make();
    expect(files.file('none')).toBeUndefined();
    files.append('none', inFlightRecord('a', 1));
    await expect(files.view('none')).resolves.toMatchObject({ records: [] });
    files.file('s')!.rewound.add('a');
    paths.set('s', join(dir, 'moved.ledger.jsonl'));
    expect(files.file('s')).toMatchObject({ path: join(dir, 'moved.ledger.jsonl'), rewound: new Set() });
  });

  describe('a session that leaves this node and comes back (another owner may have appended meanwhile)', () => {
    const line = (record: object) => `${JSON.stringify(record)}\n`;
    const lostBy = (files: LedgerFiles, promptId: string) => files.view('s').then((view) => view.latest.get(promptId));

    it('keeps nothing of a read that spans the detach: the next attachment reads the file again', async () => {
      const path = paths.get('s')!;
      writeFileSync(path, line(inFlightRecord('a', 1)));
      const files = make();
      const before = files.view('s'); // a poll's read, under way as the session leaves
      paths.delete('s');
      await files.detach('s');
      await expect(before).resolves.toMatchObject({ latest: new Map([['a', expect.objectContaining({ state: 'in_flight' })]]) });
      appendFileSync(path, line(reconciledRecordOf('a', false, 2))); // the next owner's load settles a as lost
      paths.set('s', path); // loaded here again
      await expect(lostBy(files, 'a')).resolves.toMatchObject({ terminal: 'interrupted', code: 'daemon_lost' });
      expect(reads).toHaveBeenCalledTimes(2);
    });

    it('does not share a read of the earlier attachment with a read of the new one', async () => {
      const path = paths.get('s')!;
      writeFileSync(path, line(inFlightRecord('a', 1)));
      const [read, held] = [deferred<void>(), deferred<void>()];
      const actual = jest.requireActual<typeof import('./ledger-tail.js')>('./ledger-tail.js').readLedgerTail;
      reads.mockImplementationOnce(async (file) => {
        const tail = await actual(file); // the file as it was before the detach
        read.resolve();
        await held.promise;
        return tail;
      });
      const files = make();
      const before = files.view('s');
      // The read itself is done (on the thread pool: a count of turns is no bound) before the next owner appends.
      await read.promise;
      paths.delete('s');
      await files.detach('s');
      appendFileSync(path, line(reconciledRecordOf('a', false, 2)));
      paths.set('s', path);
      const after = lostBy(files, 'a'); // asked while the earlier attachment's read is still under way
      held.resolve();
      await expect(after).resolves.toMatchObject({ terminal: 'interrupted', code: 'daemon_lost' });
      await expect(before).resolves.toMatchObject({ records: [expect.objectContaining({ state: 'in_flight' })] });
    });
  });

  it('logs a failed append without its content, and goes on with the next', async () => {
    writeFileSync(join(dir, 'not-a-dir'), '');
    paths.set('s', join(dir, 'not-a-dir', 's.ledger.jsonl'));
    const files = make();
    files.append('s', inFlightRecord('secret-prompt', 1));
    await files.flush('s');
    paths.set('s', join(dir, 's.ledger.jsonl'));
    files.append('s', inFlightRecord('b', 2));
    await files.flush('s');
    expect(promptsIn(join(dir, 's.ledger.jsonl'))).toEqual(['b']);
    expect(warned).toEqual([expect.stringMatching(/^ledger append failed for session s: \w+/)]);
    expect(warned.join('\n')).not.toContain('secret-prompt');
  });
});

import type { Logger } from '@nestjs/common';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deferred } from '../../test/support/deferred.js';
import { tempDir } from '../../test/support/test-daemon.js';
import { LedgerFiles } from './ledger-files.js';
import { inFlightRecord } from './ledger-record.js';
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
  const make = (mayWrite: (sessionId: string) => boolean | Promise<boolean> = () => true) =>
    new LedgerFiles((sessionId) => paths.get(sessionId), mayWrite, logger);
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

  it('asks mayWrite before each write, also when the answer comes later, and drops a refused one', async () => {
    const answer = deferred<boolean>();
    const files = make((sessionId) => (sessionId === 's' ? answer.promise : true));
    files.append('s', inFlightRecord('a', 1));
    answer.resolve(false);
    await files.flush('s');
    await expect(files.view('s')).resolves.toMatchObject({ records: [] });
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

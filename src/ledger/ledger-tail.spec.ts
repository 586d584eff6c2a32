import { appendFileSync, mkdtempSync, openSync, closeSync, writeFileSync, writeSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inFlightRecord, type LedgerTerminalRecord } from './ledger-record.js';
import {
  danglingPrompts,
  latestByPrompt,
  LEDGER_TAIL_BYTES,
  readLedgerTail,
  recentTerminalsOf,
  rewoundPrompts,
  tailUuidsOf,
} from './ledger-tail.js';

const line = (record: object) => `${JSON.stringify(record)}\n`;
const done = (promptId: string, at: number): LedgerTerminalRecord => ({
  v: 1,
  promptId,
  terminal: 'completed',
  stopReason: 'end_turn',
  at,
});

describe('the ledger tail', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'ledger-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads nothing from a missing file', async () => {
    await expect(readLedgerTail(join(dir, 'none.ledger.jsonl'))).resolves.toEqual({ records: [], bytesRead: 0 });
  });

  it('skips a torn last line and a foreign one', async () => {
    const path = join(dir, 'a.ledger.jsonl');
    writeFileSync(path, line(inFlightRecord('a', 1)) + 'not json\n' + line(done('a', 2)) + '{"v":1,"promptId":"b","st');
    const { records } = await readLedgerTail(path);
    expect(records).toEqual([inFlightRecord('a', 1), done('a', 2)]);
  });

  it('reads at most the last 256 KiB of a 50 MB ledger, and the line the window cuts into is dropped', async () => {
    const path = join(dir, 'big.ledger.jsonl');
    const fd = openSync(path, 'w');
    const chunk = Array.from({ length: 10_000 }, (_, i) => line(inFlightRecord(`old-${i}`, i))).join('');
    let size = 0;
    while (size < 50 * 1024 * 1024) size += writeSync(fd, chunk);
    closeSync(fd);
    appendFileSync(path, line(done('newest', 99)));
    const { records, bytesRead } = await readLedgerTail(path);
    expect(bytesRead).toBe(LEDGER_TAIL_BYTES);
    expect(records.at(-1)).toEqual(done('newest', 99));
    // Every record read is whole: the window's first, cut line is not among them.
    expect(records.length).toBeGreaterThan(1000);
    expect(records.length * 40).toBeLessThan(LEDGER_TAIL_BYTES);
  });

  it('dangling prompts are those whose latest record is in_flight, in admission order', () => {
    const records = [inFlightRecord('a', 1), inFlightRecord('b', 2), done('a', 3), inFlightRecord('c', 4)];
    expect(danglingPrompts(latestByPrompt(records)).map((r) => r.promptId)).toEqual(['b', 'c']);
    expect(danglingPrompts(latestByPrompt([...records, done('b', 5), done('c', 6)]))).toEqual([]);
  });

  it('recent terminals: the last 64, oldest first', () => {
    const records = Array.from({ length: 100 }, (_, i) => done(`p${i}`, i));
    const terminals = recentTerminalsOf([inFlightRecord('x', 0), ...records]);
    expect(terminals).toHaveLength(64);
    expect(terminals[0]!.promptId).toBe('p36');
    expect(terminals.at(-1)!.promptId).toBe('p99');
  });
});

describe('rewoundPrompts', () => {
  // p1 and p4 on the chain; p2 a rewind's target; p3 admitted on the branch p2 began; q cancelled while queued; lost never settled.
  const records = [
    inFlightRecord('p1', 1),
    done('p1', 2),
    inFlightRecord('p2', 3, 'u-p1'),
    done('p2', 4),
    inFlightRecord('p3', 5, 'u-p2'),
    done('p3', 6),
    inFlightRecord('q', 7, 'u-rewind'),
    inFlightRecord('p4', 8, 'u-rewind'),
    done('p4', 9),
    inFlightRecord('lost', 10, 'u-p4'),
  ];
  const facts = { onChain: new Set(['u-p1', 'u-rewind', 'u-p4']), prompts: new Set(['p1', 'p4']), rewindTargets: new Set(['p2']) };

  it('a rewind target and a prompt admitted after a record the chain left are rewound; nothing else is', () => {
    expect([...rewoundPrompts(records, facts)]).toEqual(['p2', 'p3']);
  });

  it('a prompt on the chain is never rewound, whatever its tail', () => {
    expect(rewoundPrompts(records, { ...facts, prompts: new Set(['p1', 'p2', 'p3', 'p4']) }).size).toBe(0);
  });

  it('asks the chain about each in-flight tail once', () => {
    expect([...tailUuidsOf(records)]).toEqual(['u-p1', 'u-p2', 'u-rewind', 'u-p4']);
  });
});

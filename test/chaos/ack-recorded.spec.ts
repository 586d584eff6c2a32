import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { check } from '../../chaos/checker/ack-recorded.js';
import { check as checkKeys } from '../../chaos/checker/keys-unique.js';
import { readDataDirs } from '../../chaos/checker/data-dir.js';
import { ledgerLine, pid, prompt, runOf, SID, T0 } from './synthetic-run.js';

describe('chaos checker: every 202 recorded', () => {
  it('passes a 202 whose in_flight record is in the ledger', () => {
    const ledgers = { [SID]: [ledgerLine(1, { promptId: pid(1), state: 'in_flight', at: T0 })] };
    expect(check(runOf([prompt(0, pid(1), { node: 'n1' })], { ledgers }))).toEqual([]);
  });

  it('reports a 202 the ledger never heard of (a fenced owner still admitting after its lease key was deleted)', () => {
    const stale = prompt(5_000, pid(2), { node: 'n1' });
    const ledgers = {
      [SID]: [
        ledgerLine(1, { promptId: pid(1), state: 'in_flight', at: T0 }),
        ledgerLine(2, { promptId: pid(1), terminal: 'completed', at: T0 + 1 }),
      ],
    };
    const violations = check(runOf([prompt(0, pid(1), { node: 'n1' }), stale], { ledgers }));
    expect(violations).toEqual([{ kind: 'no-in-flight-record', message: expect.stringContaining(`prompt ${pid(2)}`), slice: [stale] }]);
    expect(violations[0]!.message).toContain('by n1');
  });

  it('does not take a terminal record for the admission', () => {
    const ledgers = { [SID]: [ledgerLine(1, { promptId: pid(1), terminal: 'interrupted', code: 'daemon_lost', at: T0 })] };
    expect(check(runOf([prompt(0, pid(1))], { ledgers }))).toHaveLength(1);
  });

  it("reports a 202 whose only in_flight line is a stale owner's, landed after the new owner's fence marker (readers skip it)", () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'chaos-ledger-'));
    try {
      const chats = join(dataDir, 'ws-0123456789ab', 'chats');
      mkdirSync(chats, { recursive: true });
      const lines = [
        { v: 1, fence: 3 },
        { v: 1, promptId: pid(1), state: 'in_flight', at: T0, fence: 3 },
        { v: 1, fence: 5 }, // n2 claims
        { v: 1, promptId: pid(2), state: 'in_flight', idempotency: { key: 'k2' }, at: T0 + 5_000, fence: 3 }, // n1, stale
        { v: 1, promptId: pid(3), state: 'in_flight', idempotency: { key: 'k2' }, at: T0 + 6_000, fence: 5 },
      ];
      writeFileSync(join(chats, `${SID}.ledger.jsonl`), lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
      const { ledgers } = readDataDirs([dataDir]);
      expect(ledgers.get(SID)!.map(({ record }) => record.promptId)).toEqual([pid(1), pid(3)]);
      const stale = prompt(5_000, pid(2), { node: 'n1', key: 'k2' });
      const history = [prompt(0, pid(1), { node: 'n1' }), stale];
      const run = runOf(history, { ledgers: Object.fromEntries(ledgers) });
      expect(check(run)).toEqual([expect.objectContaining({ kind: 'no-in-flight-record', slice: [stale] })]);
      // The key the new owner never saw was admitted again there: one key, two prompts.
      expect(
        checkKeys(runOf([...history, prompt(6_000, pid(3), { node: 'n2', key: 'k2' })], { ledgers: Object.fromEntries(ledgers) })),
      ).toEqual([expect.objectContaining({ kind: 'prompt-key-two-prompts' })]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

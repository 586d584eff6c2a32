import { check } from '../../chaos/checker/ack-recorded.js';
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
});

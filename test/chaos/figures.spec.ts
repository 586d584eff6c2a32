import { computeFigures, deliveryLagSamples } from '../../chaos/checker/figures.js';
import { summarize } from '../../chaos/checker/percentiles.js';
import { delivery, exact, fault, ledgerLine, pid, prompt, runOf, SID, T0 } from './synthetic-run.js';

describe('chaos checker: figures', () => {
  it('summarizes a sample by nearest rank', () => {
    expect(summarize([])).toEqual({ count: 0, p50: null, p99: null, max: null });
    expect(summarize([30, 10, 20, 40])).toEqual({ count: 4, p50: 20, p99: 40, max: 40 });
    expect(summarize(Array.from({ length: 100 }, (_, i) => i + 1))).toMatchObject({ p50: 50, p99: 99, max: 100 });
  });

  it('measures delivery lag from the receiver coming back to the first 2xx delivery of turns settled before', () => {
    const ledgers = {
      [SID]: [
        ledgerLine(1, { promptId: pid(1), terminal: 'completed', at: T0 + 100 }),
        ledgerLine(2, { promptId: pid(2), terminal: 'completed', at: T0 + 6_000 }),
      ],
    };
    const history = [
      fault(50, 'receiver-down', 'receiver'),
      fault(5_000, 'receiver-up', 'receiver'),
      delivery(5_400, pid(1), { answered: 500 }),
      delivery(7_000, pid(1)), // 2,000 after it came back
      delivery(6_500, pid(2)), // settled after the receiver came back: its lag is not the receiver's
    ];
    expect(deliveryLagSamples(runOf(history, { ledgers }))).toEqual([2_000]);
  });

  it('counts operations, faults and answers by kind, and says when no node identity was recorded', () => {
    const figures = computeFigures(
      runOf([prompt(0, pid(1)), exact(10, pid(1), 'completed'), exact(20, pid(1), 'completed'), fault(30, 'kill9', 'n1')]),
    );
    expect(figures.opsByKind).toEqual({ prompt: 1, exact: 2 });
    expect(figures.faultsByKind).toEqual({ kill9: 1 });
    expect(figures.statusesByClass).toEqual({ '2xx': 3 });
    expect(figures.notes).toEqual([expect.stringContaining('X-Turns-Node')]);
  });
});

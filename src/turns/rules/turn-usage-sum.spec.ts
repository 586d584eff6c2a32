import fc from 'fast-check';
import { TurnUsageSum, type UsageReport } from './turn-usage-sum.js';
import { countTokens, readTurnTokens, readTurnUsage } from './turn-usage.js';

const count = fc.nat({ max: 1_000_000 });
const tokens = fc.record(
  {
    inputTokens: count,
    outputTokens: count,
    totalTokens: count,
    thoughtTokens: count,
    cachedReadTokens: count,
  },
  { requiredKeys: ['inputTokens', 'outputTokens', 'totalTokens'] },
);
const report: fc.Arbitrary<UsageReport> = fc.oneof(
  fc.record({ kind: fc.constant('response' as const), tokens }),
  fc.record({ kind: fc.constant('turn' as const), tokens }),
  fc.record({ kind: fc.constant('cost' as const), costUsd: fc.double({ min: 0, max: 100, noNaN: true }) }),
);

const sumOf = (reports: readonly UsageReport[]) => {
  const sum = new TurnUsageSum();
  for (const r of reports) sum.add(r);
  return sum.total;
};

describe('TurnUsageSum', () => {
  it('sums the responses field by field; an optional count appears once any response has it', () => {
    expect(
      sumOf([
        { kind: 'response', tokens: { inputTokens: 10, outputTokens: 10, totalTokens: 20 } },
        { kind: 'response', tokens: { inputTokens: 30, outputTokens: 5, totalTokens: 40, thoughtTokens: 5 } },
      ]),
    ).toEqual({ inputTokens: 40, outputTokens: 15, totalTokens: 60, thoughtTokens: 5 });
  });

  it("the turn's total replaces the sum of responses, before or after them; the cost is the largest reported", () => {
    const responses: UsageReport[] = [
      { kind: 'response', tokens: { inputTokens: 10, outputTokens: 10, totalTokens: 20 } },
      { kind: 'response', tokens: { inputTokens: 10, outputTokens: 10, totalTokens: 20 } },
    ];
    const turn: UsageReport = { kind: 'turn', tokens: { inputTokens: 25, outputTokens: 20, totalTokens: 45 } };
    expect(sumOf([...responses, turn])).toEqual({ inputTokens: 25, outputTokens: 20, totalTokens: 45 });
    expect(sumOf([turn, ...responses])).toEqual({ inputTokens: 25, outputTokens: 20, totalTokens: 45 });
    const costs: UsageReport[] = [
      { kind: 'cost', costUsd: 0.01 },
      { kind: 'cost', costUsd: 0.03 },
    ];
    expect(sumOf([...responses, ...costs])).toEqual({ inputTokens: 20, outputTokens: 20, totalTokens: 40, costUsd: 0.03 });
  });

  it('is absent while nothing was reported; add says whether the usage changed', () => {
    const sum = new TurnUsageSum();
    expect(sum.total).toBeUndefined();
    expect(sum.add({ kind: 'cost', costUsd: 0.5 })).toBe(true);
    expect(sum.add({ kind: 'cost', costUsd: 0.25 })).toBe(false);
    expect(sum.total).toEqual({ inputTokens: 0, outputTokens: 0, totalTokens: 0, costUsd: 0.5 });
  });

  it('does not depend on the order of the reports (property)', () => {
    fc.assert(
      fc.property(
        fc
          .array(report, { maxLength: 12 })
          .chain((reports) => fc.tuple(fc.constant(reports), fc.shuffledSubarray(reports, { minLength: reports.length }))),
        ([reports, shuffled]) => {
          expect(sumOf(shuffled)).toEqual(sumOf(reports));
        },
      ),
    );
  });

  it('never counts both sources: with a turn total present, the responses add nothing (property)', () => {
    fc.assert(
      fc.property(fc.array(report, { maxLength: 12 }), tokens, (reports, total) => {
        const withTotal = sumOf([...reports.filter((r) => r.kind !== 'turn'), { kind: 'turn', tokens: total }]);
        const { costUsd, ...counted } = withTotal!;
        expect(counted).toEqual(total);
        const costs = reports.flatMap((r) => (r.kind === 'cost' ? [r.costUsd] : []));
        expect(costUsd).toBe(costs.length ? Math.max(...costs) : undefined);
      }),
    );
  });

  it('without a turn total, each count is the sum over the responses (property)', () => {
    fc.assert(
      fc.property(fc.array(tokens, { minLength: 1, maxLength: 12 }), (responses) => {
        const total = sumOf(responses.map((t) => ({ kind: 'response', tokens: t })))!;
        expect(total.totalTokens).toBe(responses.reduce((n, t) => n + t.totalTokens, 0));
        expect(total.inputTokens).toBe(responses.reduce((n, t) => n + t.inputTokens, 0));
      }),
    );
  });
});

describe('readTurnTokens / readTurnUsage', () => {
  it('reads plain counts, derives a missing total, and drops what is not a count', () => {
    expect(readTurnTokens({ inputTokens: 10, outputTokens: 4, thoughtTokens: 2 })).toEqual({
      inputTokens: 10,
      outputTokens: 4,
      totalTokens: 16,
      thoughtTokens: 2,
    });
    expect(readTurnTokens({ inputTokens: -1, outputTokens: 1.5, totalTokens: '3' })).toBeUndefined();
    expect(readTurnTokens(null)).toBeUndefined();
    expect(readTurnUsage({ inputTokens: 1, outputTokens: 1, totalTokens: 2, costUsd: Number.NaN })).toEqual({
      inputTokens: 1,
      outputTokens: 1,
      totalTokens: 2,
    });
  });

  it('countTokens adds only growth, per kind, and never takes back', () => {
    const counted = { input: 0, output: 0, thought: 0, cachedRead: 0 };
    expect(countTokens(counted, { inputTokens: 10, outputTokens: 10, totalTokens: 20 })).toEqual({
      input: 10,
      output: 10,
      thought: 0,
      cachedRead: 0,
    });
    expect(countTokens(counted, { inputTokens: 8, outputTokens: 15, totalTokens: 23 })).toEqual({
      input: 0,
      output: 5,
      thought: 0,
      cachedRead: 0,
    });
    expect(counted).toEqual({ input: 10, output: 15, thought: 0, cachedRead: 0 });
  });
});

import { canarySamples, check, failoverBound, failoverFigure, nodeFaultAlone } from '../../chaos/checker/failover.js';
import { canaryOp, claim, nodeFault, runOf, SID, SID2, T0, transcript } from './synthetic-run.js';

const LEASE = { meta: { leaseMs: 3_000 } };

describe('chaos checker: the canary failover figure', () => {
  it('splits a session failover into lease expiry, claim and serving, from the fault to the first 2xx', () => {
    const history = [
      nodeFault(1_000, 'sigstop', 'n1'),
      canaryOp(1_000, 1_200, 'current', null), // the stopped owner holds the socket: timed out
      canaryOp(1_000, 4_000, 'current', 404, 'n2'),
      { ...canaryOp(1_000, 4_010, 'load', 200, 'n2'), end: T0 + 4_060 },
      canaryOp(1_000, 4_200, 'current', 200, 'n2'), // answered at +4,210
    ];
    const [sample] = canarySamples(runOf(history, LEASE));
    expect(sample).toMatchObject({ fault: 'sigstop', target: 'n1', sessionId: SID, answered: true, censored: false });
    expect(sample).toMatchObject({ totalMs: 3_210, expiryMs: 3_010, claimMs: 50, servingMs: 150 });
    expect(check(runOf(history, LEASE))).toEqual([]);
  });

  it('holds each sample to the lease + the run load p99 + 0.5 s, and reports one over it with its split', () => {
    const loads = [claim(100, 'n1'), { ...claim(200, 'n2'), end: T0 + 1_200 }]; // load p99 1,000 ms
    expect(failoverBound(runOf(loads, LEASE))).toBe(3_000 + 1_000 + 500);
    const slow = [nodeFault(10_000, 'kill9', 'n1'), canaryOp(10_000, 14_600, 'current', 200, 'n3')]; // 4,610 ms
    const violations = check(runOf([...loads, ...slow], LEASE));
    expect(violations).toEqual([expect.objectContaining({ kind: 'over-bound:kill9' })]);
    expect(violations[0]!.message).toContain('4610 ms (expiry 4600 + claim 0 + serving 10)');
  });

  it('adds the time Redis was down inside a sample to its bound: no node may claim then (chaos SEED=8123, schedule 2)', () => {
    const loads = [claim(100, 'n1'), { ...claim(200, 'n2'), end: T0 + 300 }]; // load p99 100 ms: bound 3,600
    const faultAndAnswer = [nodeFault(10_000, 'sigstop', 'n3'), canaryOp(10_000, 14_500, 'current', 200, 'n1')]; // 4,510 ms
    const outage = (from: number, to: number) => [
      { type: 'fault', t: T0 + from, fault: 'redis-kill', target: 'redis' },
      { type: 'fault', t: T0 + to, fault: 'redis-restart', target: 'redis' },
    ];
    // Redis down 1,000 ms inside the sample: 4,510 <= 3,600 + 1,000.
    expect(check(runOf([...loads, ...outage(11_000, 12_000), ...faultAndAnswer], LEASE))).toEqual([]);
    expect(canarySamples(runOf([...loads, ...outage(11_000, 12_000), ...faultAndAnswer], LEASE))[0]).toMatchObject({ redisDownMs: 1_000 });
    // Only the part inside the sample counts: an outage before the fault adds nothing (nor does its restart, empty,
    // more than a third of a lease + a lease before it).
    const before = check(runOf([...loads, ...outage(3_000, 5_000), ...faultAndAnswer], LEASE));
    expect(before).toEqual([expect.objectContaining({ kind: 'over-bound:sigstop' })]);
    // Down 400 ms inside (and back empty: a lease more): 8,010 > 3,600 + 400 + 3,000, reported with both named.
    const late = [nodeFault(10_000, 'sigstop', 'n3'), canaryOp(10_000, 18_000, 'current', 200, 'n1')];
    const short = check(runOf([...loads, ...outage(11_000, 11_400), ...late], LEASE));
    expect(short[0]!.message).toContain('over the bound 3600 ms + 400 ms Redis was down + a lease (Redis lost its data)');
  });

  it('adds a lease to the bound of a sample inside which Redis lost its data: a claim then waits out a silent previous owner (chaos SEED=6151, schedule 1)', () => {
    const loads = [claim(100, 'n1'), { ...claim(200, 'n2'), end: T0 + 300 }]; // bound 3,600
    const faultAndAnswer = [nodeFault(10_000, 'sigstop', 'n1'), canaryOp(10_000, 15_500, 'current', 200, 'n2')]; // 5,510 ms
    const flushed = { type: 'fault', t: T0 + 12_000, fault: 'flushall', target: 'redis' };
    expect(check(runOf([...loads, flushed, ...faultAndAnswer], LEASE))).toEqual([]); // 5,510 <= 3,600 + 3,000
    // A loss just before the fault counts while its marker may stand (a third of a lease + a lease: 4 s); one earlier adds nothing.
    const justBefore = { ...flushed, t: T0 + 6_000 };
    expect(check(runOf([...loads, justBefore, ...faultAndAnswer], LEASE))).toEqual([]);
    const before = { ...flushed, t: T0 + 5_999 };
    expect(check(runOf([...loads, before, ...faultAndAnswer], LEASE))).toEqual([expect.objectContaining({ kind: 'over-bound:sigstop' })]);
    const late = [nodeFault(10_000, 'sigstop', 'n1'), canaryOp(10_000, 16_700, 'current', 200, 'n2')]; // 6,710 ms: over even so
    expect(check(runOf([...loads, flushed, ...late], LEASE))[0]!.message).toContain(
      'over the bound 3600 ms + a lease (Redis lost its data)',
    );
  });

  it('sets apart, in the figure, the samples of a node fault alone from those with Redis down or emptied inside', () => {
    const alone = [nodeFault(1_000, 'kill9', 'n1'), canaryOp(1_000, 3_000, 'current', 200, 'n2')]; // 2,010 ms
    const withLoss = [
      nodeFault(20_000, 'sigstop', 'n2', [SID2]),
      { type: 'fault', t: T0 + 21_000, fault: 'flushall', target: 'redis' },
      canaryOp(20_000, 25_000, 'current', 200, 'n3', SID2), // 5,010 ms
    ];
    const run = runOf([...alone, ...withLoss], LEASE);
    expect(canarySamples(run).map(nodeFaultAlone)).toEqual([true, false]);
    expect(failoverFigure(run)).toMatchObject({ totalMs: { count: 2, p99: 5_010 }, nodeFaultAloneMs: { count: 1, p99: 2_010 } });
  });

  it('reports a session with a transcript that never answered, and sets apart one with nothing to load (censored)', () => {
    const history = [
      nodeFault(1_000, 'pause-append', 'n1', [SID, SID2]),
      canaryOp(1_000, 4_000, 'load', 503, 'n1'),
      canaryOp(1_000, 4_000, 'load', 404, 'n2', SID2),
      { type: 'canary-end', t: T0 + 31_000, canary: T0 + 1_000, sessionId: SID, answered: false, lost: 0 },
      { type: 'canary-end', t: T0 + 31_000, canary: T0 + 1_000, sessionId: SID2, answered: false, lost: 3 },
    ];
    const run = runOf(history, { ...LEASE, transcripts: [transcript([{ type: 'user' }])] }); // SID has one, SID2 none
    expect(check(run)).toEqual([expect.objectContaining({ kind: 'never-answered:pause-append' })]);
    expect(check(run)[0]!.message).toContain('answered no 2xx in the 30000 ms the canary watched');
    expect(failoverFigure(run)).toMatchObject({ censored: 1, unanswered: 1, totalMs: { count: 0 } });
  });

  it('takes no sample for a fault without owned sessions, nor for ops of another fault', () => {
    const history = [nodeFault(1_000, 'kill9', 'n1', []), nodeFault(2_000, 'kill9', 'n2'), canaryOp(1_000, 2_500, 'current', 200, 'n3')];
    expect(canarySamples(runOf(history, LEASE))).toEqual([]);
  });
});

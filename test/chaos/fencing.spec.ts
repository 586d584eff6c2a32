import { check } from '../../chaos/checker/fencing.js';
import { ownershipTimeline } from '../../chaos/checker/ownership.js';
import { claim, exact, fault, pid, prompt, runOf, SID } from './synthetic-run.js';

describe('chaos checker: fencing', () => {
  it('follows ownership through creates and loads named by X-Turns-Node', () => {
    const owners = ownershipTimeline([claim(0, 'n1', 'create'), claim(100, 'n2'), claim(200, 'n2')]).get(SID)!;
    expect(owners.map((o) => o.node)).toEqual(['n1', 'n2']);
  });

  it('passes a session served by its new owner after a load, and by the old one before it', () => {
    const history = [
      claim(0, 'n1', 'create'),
      prompt(10, pid(1), { node: 'n1' }),
      fault(20, 'sigstop', 'n1'),
      claim(12_000, 'n2'),
      exact(12_100, pid(1), 'error', { node: 'n2' }),
      fault(15_000, 'sigcont', 'n1'),
      exact(15_100, pid(1), 'error', { node: 'n2' }), // reached n1 through nginx, forwarded: the owner's name
    ];
    expect(check(runOf(history))).toEqual([]);
  });

  it('does not blame an answer whose request was sent before the lease moved', () => {
    const slow = exact(11_000, pid(1), 'running', { node: 'n1' });
    slow.end = slow.start + 2_000;
    expect(check(runOf([claim(0, 'n1', 'create'), slow, claim(12_000, 'n2')]))).toEqual([]);
  });

  it('reports the old owner answering after another node claimed the session, with the two claims and the answer', () => {
    const created = claim(0, 'n1', 'create');
    const taken = claim(12_000, 'n2');
    const stale = exact(15_100, pid(1), 'running', { node: 'n1' });
    const violations = check(
      runOf([created, prompt(10, pid(1), { node: 'n1' }), taken, stale, exact(15_200, pid(1), 'running', { node: 'n1' })]),
    );
    expect(violations).toHaveLength(1);
    expect(violations[0]!.message).toContain('n1 answered');
    expect(violations[0]!.message).toContain('after n2 claimed it');
    expect(violations[0]!.slice).toEqual([created, taken, stale]);
  });

  it('passes an answer of the node whose load was under way when it arrived (chaos SEED=2931, schedule 5)', () => {
    const load = claim(30_000, 'n1');
    load.end = load.start + 40;
    const during = exact(30_035, pid(1), 'completed', { node: 'n1' }); // sent before the load answered, answered by n1
    expect(check(runOf([claim(0, 'n1', 'create'), claim(12_000, 'n2'), load, during]))).toEqual([]);
    const before = exact(29_000, pid(1), 'completed', { node: 'n1' }); // answered before n1's load began: still a violation
    expect(check(runOf([claim(0, 'n1', 'create'), claim(12_000, 'n2'), before, load]))).toHaveLength(1);
  });

  it('does not take a create replayed from its key by another node for a claim (chaos SEED=2931, schedule 0)', () => {
    const replayed = claim(15, 'n3', 'create');
    replayed.headers = { ...replayed.headers, 'idempotent-replayed': 'true' };
    const served = exact(3_000, pid(1), 'running', { node: 'n1' });
    expect(
      ownershipTimeline([claim(0, 'n1', 'create'), replayed])
        .get(SID)!
        .map((o) => o.node),
    ).toEqual(['n1']);
    expect(check(runOf([claim(0, 'n1', 'create'), replayed, prompt(10, pid(1), { node: 'n1' }), served]))).toEqual([]);
    // The same answer without the header is a claim by n3, and n1's answer after it is reported.
    expect(check(runOf([claim(0, 'n1', 'create'), claim(15, 'n3', 'create'), served]))).toHaveLength(1);
  });

  it('passes the old owner once it claimed the session back', () => {
    const history = [
      claim(0, 'n1', 'create'),
      claim(12_000, 'n2'),
      claim(30_000, 'n1'),
      exact(30_100, pid(1), 'completed', { node: 'n1' }),
    ];
    expect(check(runOf(history))).toEqual([]);
  });
});

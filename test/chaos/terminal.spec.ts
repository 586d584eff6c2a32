import { check } from '../../chaos/checker/terminal.js';
import { exact, ledgerLine, miss, pid, prompt, runOf, SID, T0 } from './synthetic-run.js';

// runOf's meta: the last fault healed at +100 s, settle time 10 s → nothing may be live from +110 s on.
describe('chaos checker: acknowledged prompts reach a terminal', () => {
  it('passes a prompt the exact route reports settled', () => {
    expect(check(runOf([prompt(0, pid(1)), exact(100, pid(1), 'running'), exact(200, pid(1), 'completed')]))).toEqual([]);
  });

  it('passes a prompt whose terminal only the ledger holds', () => {
    const ledgers = {
      [SID]: [
        ledgerLine(1, { promptId: pid(1), state: 'in_flight', at: T0 }),
        ledgerLine(2, { promptId: pid(1), terminal: 'interrupted', code: 'daemon_lost', at: T0 + 5 }),
      ],
    };
    expect(check(runOf([prompt(0, pid(1))], { ledgers }))).toEqual([]);
  });

  it('reports a prompt still running past healedAt + settleMs, with the answer that shows it', () => {
    const ack = prompt(0, pid(1));
    const late = exact(111_000, pid(1), 'running', { final: true });
    const violations = check(runOf([ack, exact(50, pid(1), 'completed'), late]));
    expect(violations).toHaveLength(1);
    expect(violations[0]!.message).toContain('still running');
    expect(violations[0]!.slice).toEqual([ack, late]);
  });

  it('does not count a live state seen before the settle time as stuck', () => {
    expect(
      check(runOf([prompt(0, pid(1)), exact(109_000, pid(1), 'queued'), exact(112_000, pid(1), 'completed', { final: true })])),
    ).toEqual([]);
  });

  it('gives a prompt admitted after the last heal its own settle time, from its admission (chaos SEED=2931 long run)', () => {
    const ack = prompt(105_000, pid(1));
    expect(check(runOf([ack, exact(114_000, pid(1), 'running'), exact(116_000, pid(1), 'completed', { final: true })]))).toEqual([]);
    const late = exact(115_000, pid(1), 'running', { final: true });
    expect(check(runOf([ack, exact(50, pid(1), 'completed'), late])).map((v) => v.slice)).toEqual([[ack, late]]);
  });

  it('reports an acknowledged prompt no route, list or ledger ever reported settled', () => {
    const violations = check(runOf([prompt(0, pid(1)), exact(10, pid(1), 'queued')]));
    expect(violations.map((v) => v.message)).toEqual([expect.stringContaining('no route, list or ledger ever reported a terminal')]);
  });

  it('takes a terminal from the list route too', () => {
    const listed = { ...exact(300, pid(1), 'completed'), path: `/session/${SID}/turns?limit=20`, op: 'final-list' };
    listed.body = { turns: [exact(300, pid(1), 'completed').body] };
    expect(check(runOf([prompt(0, pid(1)), listed]))).toEqual([]);
  });

  it('reports a 404 while the prompt is inside the bounded windows', () => {
    const lost = miss(500, pid(1));
    const violations = check(
      runOf([prompt(0, pid(1)), prompt(10, pid(2)), exact(100, pid(1), 'completed'), exact(100, pid(2), 'completed'), lost]),
    );
    expect(violations).toHaveLength(1);
    expect(violations[0]!.message).toContain('answered 404');
    expect(violations[0]!.slice).toContain(lost);
  });

  it('passes a 404 once windowTurns newer prompts were admitted (the window expired)', () => {
    const history = [prompt(0, pid(1)), exact(5, pid(1), 'completed')];
    for (let n = 2; n <= 4; n += 1) history.push(prompt(n * 10, pid(n)), exact(n * 10 + 5, pid(n), 'completed'));
    history.push(miss(500, pid(1)));
    expect(check(runOf(history, { meta: { windowTurns: 3 } }))).toEqual([]);
    // One newer prompt fewer than the window, and the same 404 is a violation.
    expect(check(runOf(history, { meta: { windowTurns: 4 } }))).toHaveLength(1);
  });

  it('counts newer admissions from the ledger when their 202 never reached a client', () => {
    const ledgers = { [SID]: [1, 2, 3].map((n) => ledgerLine(n, { promptId: pid(n), state: 'in_flight', at: T0 + n })) };
    const history = [prompt(0, pid(1)), exact(5, pid(1), 'completed'), miss(500, pid(1))];
    expect(check(runOf(history, { ledgers, meta: { windowTurns: 2 } }))).toEqual([]);
  });
});

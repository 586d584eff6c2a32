import { check } from '../../chaos/checker/lost-announced.js';
import { delivery, exact, ledgerLine, pid, prompt, runOf, SID, T0 } from './synthetic-run.js';

const lostLine = (promptId: string) => ledgerLine(2, { promptId, terminal: 'interrupted', code: 'daemon_lost', at: T0 + 5_000 });

describe('chaos checker: every lost prompt announced', () => {
  it("passes a daemon_lost prompt whose turn.error reached the operator's endpoint", () => {
    const history = [prompt(0, pid(1)), delivery(6_000, pid(1), { type: 'turn.error', path: '/hook/n2' })];
    expect(check(runOf(history, { ledgers: { [SID]: [lostLine(pid(1))] } }))).toEqual([]);
  });

  it('reports a prompt settled daemon_lost at load that no webhook ever announced', () => {
    const violations = check(runOf([prompt(0, pid(1))], { ledgers: { [SID]: [lostLine(pid(1))] } }));
    expect(violations).toEqual([expect.objectContaining({ kind: 'no-webhook', message: expect.stringContaining(pid(1)) })]);
  });

  it('takes a route answering error/daemon_lost as the evidence too, and needs the delivery answered 2xx', () => {
    const lost = exact(6_000, pid(1), 'error', { queuedAt: false, extra: { error: { code: 'daemon_lost', message: 'x' } } });
    const refused = delivery(7_000, pid(1), { type: 'turn.error', answered: 500, path: '/hook/n1' });
    expect(check(runOf([prompt(0, pid(1)), lost, refused]))).toEqual([expect.objectContaining({ kind: 'no-webhook' })]);
  });

  it('does not take a subscription delivery for the operator endpoint, nor judge a run without one', () => {
    const history = [prompt(0, pid(1)), delivery(6_000, pid(1), { type: 'turn.error', path: `/sub/${SID}` })];
    const ledgers = { [SID]: [lostLine(pid(1))] };
    expect(check(runOf(history, { ledgers }))).toHaveLength(1);
    expect(check(runOf(history, { ledgers, meta: { operatorWebhook: false } }))).toEqual([]);
  });
});

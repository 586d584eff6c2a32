import { check, publishedTerminals } from '../../chaos/checker/webhooks.js';
import { signatureProblem } from '../../chaos/checker/webhook-signature.js';
import { delivery, exact, ledgerLine, op, pid, prompt, runOf, SECRET, SID, SID2, T0 } from './synthetic-run.js';

const settledInLedger = (n: number, terminal = 'completed', extra: Record<string, unknown> = {}) => ({
  [SID]: [
    ledgerLine(1, { promptId: pid(n), state: 'in_flight', at: T0 }),
    ledgerLine(2, { promptId: pid(n), terminal, at: T0 + 5, ...extra }),
  ],
});

describe('chaos checker: webhook deliveries', () => {
  it('verifies a delivery signed with the run secret, and tells a forged or altered one', () => {
    const good = delivery(1000, pid(1));
    expect(signatureProblem(SECRET, good)).toBeUndefined();
    expect(signatureProblem(SECRET, { ...good, raw: good.raw.replace('completed', 'cancelled') })).toBe('no v1 signature matches the body');
    expect(signatureProblem(SECRET, delivery(1000, pid(1), { secret: `whsec_${Buffer.alloc(32, 9).toString('base64')}` }))).toBeDefined();
    expect(signatureProblem(SECRET, { ...good, t: good.t + 10 * 60_000 })).toContain('5 minutes');
    expect(signatureProblem(SECRET, { ...good, headers: {} })).toContain('missing');
  });

  it('passes a settled turn delivered once with a 2xx after a 500', () => {
    const history = [prompt(0, pid(1)), delivery(100, pid(1), { answered: 500 }), delivery(5000, pid(1))];
    expect(check(runOf(history, { ledgers: settledInLedger(1) }))).toEqual([]);
  });

  it('reports a settled turn never delivered with a 2xx, with what the receiver got', () => {
    const refused = delivery(100, pid(1), { answered: 500 });
    const violations = check(runOf([prompt(0, pid(1)), refused], { ledgers: settledInLedger(1) }));
    expect(violations).toHaveLength(1);
    expect(violations[0]!.message).toContain('no delivery of it to operator was answered 2xx (1 attempts received)');
    expect(violations[0]!.slice).toContain(refused);
  });

  it('reports a delivery whose signature does not verify', () => {
    const forged = delivery(100, pid(1), { secret: `whsec_${Buffer.alloc(32, 9).toString('base64')}` });
    const violations = check(runOf([prompt(0, pid(1)), forged, delivery(200, pid(1))], { ledgers: settledInLedger(1) }));
    expect(violations.map((v) => v.message)).toEqual([expect.stringContaining('does not verify')]);
    expect(violations[0]!.slice).toEqual([forged]);
  });

  it('reports a delivery naming a prompt never admitted', () => {
    const stray = delivery(100, pid(9));
    const violations = check(runOf([prompt(0, pid(1)), delivery(50, pid(1)), stray], { ledgers: settledInLedger(1) }));
    expect(violations.map((v) => v.message)).toEqual([expect.stringContaining(`names prompt ${pid(9)}, never admitted`)]);
    expect(violations[0]!.slice).toEqual([stray]);
  });

  it('owes no event for a prompt settled only by reconciliation at load (it publishes nothing)', () => {
    expect(check(runOf([prompt(0, pid(1))], { ledgers: settledInLedger(1, 'interrupted', { code: 'daemon_lost' }) }))).toEqual([]);
    expect(
      publishedTerminals(runOf([], { ledgers: settledInLedger(1, 'completed', { stopReason: 'reconstructed_from_transcript' }) })).size,
    ).toBe(0);
  });

  it('takes an overlay answer (with queuedAt) as a published terminal, a persisted-only one (without) not', () => {
    expect([...publishedTerminals(runOf([exact(10, pid(1), 'completed')])).keys()]).toEqual([pid(1)]);
    expect(publishedTerminals(runOf([exact(10, pid(1), 'completed', { queuedAt: false })])).size).toBe(0);
  });

  it('with subscriptions in the history, owes events only to the sessions subscribed before the prompt', () => {
    const subscribe = op(0, { op: 'webhook', method: 'POST', path: `/session/${SID}/webhooks`, status: 201 });
    const history = [
      subscribe,
      prompt(10, pid(1)),
      prompt(10, pid(2), { sessionId: SID2 }),
      exact(20, pid(1), 'completed'),
      exact(20, pid(2), 'completed', { sessionId: SID2 }),
    ];
    const violations = check(runOf(history));
    expect(violations.map((v) => v.message)).toEqual([expect.stringContaining(`prompt ${pid(1)}`)]);
  });

  it('with the operator endpoint beside subscriptions, owes each its own delivery, signed with its own secret', () => {
    const own = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
    const subscribe = op(0, {
      op: 'subscribe',
      method: 'POST',
      path: `/session/${SID}/webhooks`,
      status: 201,
      body: { webhookId: 'w1', secret: own },
    });
    const history = [subscribe, prompt(10, pid(1)), exact(20, pid(1), 'completed')];
    const meta = { meta: { operatorWebhook: true } };
    const toOperator = delivery(30, pid(1), { path: '/hook/n1' });
    const toSubscription = delivery(40, pid(1), { path: `/sub/${SID}`, secret: own });
    expect(check(runOf([...history, toOperator, toSubscription], meta))).toEqual([]);
    expect(check(runOf([...history, toOperator], meta)).map((v) => v.kind)).toEqual(['undelivered-to-subscription']);
    expect(check(runOf([...history, toSubscription], meta)).map((v) => v.kind)).toEqual(['undelivered']);
    // A subscription's delivery signed with the operator's secret does not verify.
    const forged = delivery(40, pid(1), { path: `/sub/${SID}` });
    expect(check(runOf([...history, toOperator, forged], meta)).map((v) => v.kind)).toEqual([
      'bad-signature',
      'undelivered-to-subscription',
    ]);
  });
});

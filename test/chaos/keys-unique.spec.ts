import { check } from '../../chaos/checker/keys-unique.js';
import { ledgerLine, op, pid, prompt, runOf, SID, T0, transcript } from './synthetic-run.js';

const create = (at: number, key: string, sessionId: string, node: string) =>
  op(at, {
    op: 'create',
    method: 'POST',
    path: '/session',
    via: node,
    idempotencyKey: key,
    sessionId,
    body: { sessionId },
    headers: { 'x-turns-node': node },
  });

describe('chaos checker: keys unique', () => {
  it('passes one key replayed as one prompt, by the 202s, the ledger and the transcript alike', () => {
    const history = [prompt(0, pid(1), { key: 'k1' }), prompt(9_000, pid(1), { key: 'k1' })];
    const ledgers = { [SID]: [ledgerLine(1, { promptId: pid(1), state: 'in_flight', idempotency: { key: 'k1' }, at: T0 })] };
    const transcripts = [transcript([{ type: 'user', promptId: pid(1), idempotency: { key: 'k1', fingerprint: 'f' } }])];
    expect(check(runOf(history, { ledgers, transcripts }))).toEqual([]);
  });

  it('reports a key retried after a failover that admitted a new prompt (its first lived only in memory)', () => {
    const first = prompt(0, pid(1), { key: 'k1', node: 'n1' });
    const again = prompt(9_000, pid(2), { key: 'k1', node: 'n2', client: 'c2' }); // another client: only the union sees it
    const transcripts = [transcript([{ type: 'user', promptId: pid(2), idempotency: { key: 'k1', fingerprint: 'f' } }])];
    const violations = check(runOf([first, again], { transcripts }));
    expect(violations).toHaveLength(1);
    expect(violations[0]).toMatchObject({ kind: 'prompt-key-two-prompts', slice: [first, again] });
    expect(violations[0]!.message).toContain('names 2 prompts');
  });

  it('sees a key the ledger keeps for a prompt no client saw acknowledged', () => {
    const ledgers = {
      [SID]: [
        ledgerLine(1, { promptId: pid(1), state: 'in_flight', idempotency: { key: 'k1' }, at: T0 }),
        ledgerLine(2, { promptId: pid(3), state: 'in_flight', idempotencyKey: 'k1', at: T0 + 5 }),
      ],
    };
    expect(check(runOf([], { ledgers }))).toEqual([expect.objectContaining({ kind: 'prompt-key-two-prompts' })]);
  });

  it('passes a create key sent to two nodes that made one session, and reports one that made two', () => {
    const a = '33333333-3333-4333-8333-333333333333';
    const b = '44444444-4444-4444-8444-444444444444';
    expect(check(runOf([create(0, 'ck', a, 'n1'), create(100, 'ck', a, 'n2')]))).toEqual([]);
    const violations = check(runOf([create(0, 'ck', a, 'n1'), create(100, 'ck', b, 'n2')]));
    expect(violations).toEqual([expect.objectContaining({ kind: 'create-key-two-sessions' })]);
    expect(violations[0]!.message).toContain('made 2 sessions');
  });
});

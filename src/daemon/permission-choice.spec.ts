import type { PendingInteraction, PendingInteractionOption } from '../client/index.js';
import { refusingOutcome } from '../permissions/permission-policy.js';
import { answerCommand, approvalLines, optionChoice, outcomeFor } from './permission-choice.js';

const offering = (...options: PendingInteractionOption[]): PendingInteraction => ({
  requestId: 'r',
  kind: 'permission',
  createdAt: '2026-12-03T12:00:00.000Z',
  action: { title: 'Run rm -rf build' },
  options,
});
const always = { optionId: 'always', kind: 'allow_always' };
const once = { optionId: 'once', kind: 'allow_once' };
const reject = { optionId: 'no', kind: 'reject_once' };
const never = { optionId: 'never', kind: 'reject_always' };

describe('outcomeFor', () => {
  it('allows with the allow_once option only, never a wider grant', () => {
    expect(outcomeFor(offering(always, once, reject), 'allow')).toEqual({ outcome: 'selected', optionId: 'once' });
    expect(outcomeFor(offering(always, reject), 'allow')).toBeUndefined();
  });

  it('denies with reject_once, else reject_always, else by cancelling', () => {
    expect(outcomeFor(offering(once, never, reject), 'deny')).toEqual({ outcome: 'selected', optionId: 'no' });
    expect(outcomeFor(offering(once, never), 'deny')).toEqual({ outcome: 'selected', optionId: 'never' });
    expect(outcomeFor(offering(once, { optionId: 'x', kind: 'something_else' }), 'deny')).toEqual({ outcome: 'cancelled' });
  });

  it('denies with the option the deny policy picks, for every set offered', () => {
    const all = [always, once, reject, never];
    for (let mask = 0; mask < 1 << all.length; mask += 1) {
      const options = all.filter((_, i) => mask & (1 << i));
      expect(outcomeFor(offering(...options), 'deny')).toEqual(refusingOutcome(options));
    }
  });
});

describe('answerCommand', () => {
  it('suggests --allow|--deny when allow_once is offered, else --option with the ids offered', () => {
    expect(answerCommand('s', offering(once, reject), {})).toBe('nest-turn-status permissions s r --allow|--deny');
    expect(answerCommand('s', offering(always, never), {})).toBe('nest-turn-status permissions s r --option always|never');
    expect(optionChoice(offering(always, { optionId: 'x\u001b[2K', kind: 'other' }))).toBe('--option always|x?[2K');
  });

  it('repeats the URL given on the command line and the client id sent, so it works from another shell', () => {
    expect(answerCommand('s', offering(once), { url: 'http://127.0.0.1:9', clientId: 'client_1' })).toBe(
      'nest-turn-status permissions s r --allow|--deny --url http://127.0.0.1:9 --client-id client_1',
    );
  });
});

describe('approvalLines', () => {
  it('names each request a running turn waits on, with the command that answers it', () => {
    const request = { ...offering(once, reject), action: { type: 'execute', title: 'ls' } };
    const running = {
      sessionId: 's1',
      state: 'running' as const,
      promptId: 'p',
      queuedAt: 1,
      startedAt: 2,
      pendingInteractions: [request],
    };
    expect(approvalLines('s1', running, {})).toEqual([
      'waits on approval: the agent asks to execute "ls"; answer with: nest-turn-status permissions s1 r --allow|--deny',
    ]);
    expect(approvalLines('s1', { ...running, pendingInteractions: undefined }, {})).toEqual([]);
  });
});

import {
  allowingOutcome,
  decisionAtOnce,
  isOffered,
  MAX_PENDING_PER_SESSION,
  mayAnswer,
  refusalOption,
  refusingOutcome,
} from './permission-policy.js';

const OFFERED = [
  { kind: 'reject_always', optionId: 'never' },
  { kind: 'reject_once', optionId: 'no' },
  { kind: 'allow_always', optionId: 'always' },
  { kind: 'allow_once', optionId: 'once' },
] as const;

describe('permission policy', () => {
  it('allows once where the agent offers it, else always, else cancels', () => {
    expect(allowingOutcome(OFFERED)).toEqual({ outcome: 'selected', optionId: 'once' });
    expect(allowingOutcome(OFFERED.slice(0, 3))).toEqual({ outcome: 'selected', optionId: 'always' });
    expect(allowingOutcome(OFFERED.slice(0, 2))).toEqual({ outcome: 'cancelled' });
    expect(allowingOutcome([])).toEqual({ outcome: 'cancelled' });
  });

  it('refuses once where the agent offers it, else always, else cancels', () => {
    expect(refusingOutcome(OFFERED)).toEqual({ outcome: 'selected', optionId: 'no' });
    expect(refusingOutcome([OFFERED[0], OFFERED[3]])).toEqual({ outcome: 'selected', optionId: 'never' });
    expect(refusingOutcome(OFFERED.slice(2))).toEqual({ outcome: 'cancelled' });
  });

  it('picks the refusal, one rule for the deny policy, the time-out and the command line: once, else always, else none', () => {
    expect(refusalOption(OFFERED)).toBe(OFFERED[1]);
    expect(refusalOption([OFFERED[0], OFFERED[3]])).toBe(OFFERED[0]);
    expect(refusalOption(OFFERED.slice(2))).toBeUndefined();
  });

  it('takes a cancel, or an option the request offered, and nothing else', () => {
    const item = { options: [{ optionId: 'once', kind: 'allow_once' }] };
    expect(isOffered(item, { outcome: 'cancelled' })).toBe(true);
    expect(isOffered(item, { outcome: 'selected', optionId: 'once' })).toBe(true);
    expect(isOffered(item, { outcome: 'selected', optionId: 'always' })).toBe(false);
  });

  it('lets anyone answer first, or only the originator (an anonymous prompt: only an anonymous caller)', () => {
    expect(mayAnswer('first-responder', 'client_a', 'client_b')).toBe(true);
    expect(mayAnswer('first-responder', 'client_a', undefined)).toBe(true);
    expect(mayAnswer('designated', 'client_a', 'client_a')).toBe(true);
    expect(mayAnswer('designated', 'client_a', 'client_b')).toBe(false);
    expect(mayAnswer('designated', 'client_a', undefined)).toBe(false);
    expect(mayAnswer('designated', undefined, undefined)).toBe(true);
    expect(mayAnswer('designated', undefined, 'client_b')).toBe(false);
  });

  it('decides at once a request of an ended turn (any policy), under allow and deny, and one past the bound; holds the rest', () => {
    const CANCELLED = { outcome: 'cancelled' };
    const open = { ended: false, pendingInSession: 0 };
    for (const policy of ['ask', 'allow', 'deny'] as const) {
      expect(decisionAtOnce(policy, OFFERED, { ended: true, pendingInSession: 0 })).toEqual({ outcome: CANCELLED, decidedBy: 'turn_end' });
    }
    expect(decisionAtOnce('allow', OFFERED, open)).toEqual({ outcome: { outcome: 'selected', optionId: 'once' }, decidedBy: 'policy' });
    expect(decisionAtOnce('deny', OFFERED, open)).toEqual({ outcome: { outcome: 'selected', optionId: 'no' }, decidedBy: 'policy' });
    expect(decisionAtOnce('ask', OFFERED, open)).toBeUndefined();
    expect(decisionAtOnce('ask', OFFERED, { ended: false, pendingInSession: MAX_PENDING_PER_SESSION - 1 })).toBeUndefined();
    expect(decisionAtOnce('ask', OFFERED, { ended: false, pendingInSession: MAX_PENDING_PER_SESSION })).toEqual({
      outcome: CANCELLED,
      decidedBy: 'limit',
    });
  });
});

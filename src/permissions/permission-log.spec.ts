import { decisionLine, outcomeKind, requestLine } from './permission-log.js';

const OPTIONS = [
  { optionId: 'proceed_once', kind: 'allow_once' },
  { optionId: 'reject', kind: 'reject_once' },
];

describe('permission audit lines', () => {
  it('name an outcome by the kind of the option chosen', () => {
    expect(outcomeKind({ outcome: 'selected', optionId: 'proceed_once' }, OPTIONS)).toBe('allowed');
    expect(outcomeKind({ outcome: 'selected', optionId: 'reject' }, OPTIONS)).toBe('rejected');
    expect(outcomeKind({ outcome: 'cancelled' }, OPTIONS)).toBe('cancelled');
  });

  it('name an option of a kind neither allowing nor refusing for what the agent got: selected, not cancelled', () => {
    expect(outcomeKind({ outcome: 'selected', optionId: 'later' }, [...OPTIONS, { optionId: 'later', kind: 'defer' }])).toBe('selected');
  });

  it('say the request, the title, the outcome and who decided', () => {
    expect(requestLine('r1', 'echo ran > marker.txt', 'p1')).toBe(
      'permission r1 requested: "echo ran > marker.txt" (prompt p1, client anonymous)',
    );
    expect(requestLine('r1', 'Run', 'p1', { pseudonym: '~abc', principal: 'alice' })).toBe(
      'permission r1 requested: "Run" (prompt p1, client ~abc of principal alice)',
    );
    expect(decisionLine('r1', 'Run', { outcome: 'selected', optionId: 'reject' }, 'rejected', 'client', { pseudonym: '~abc' })).toBe(
      'permission r1 rejected (reject): "Run", decided by client ~abc',
    );
    expect(decisionLine('r1', 'Run', { outcome: 'cancelled' }, 'cancelled', 'client_left')).toBe(
      'permission r1 cancelled: "Run", decided by client left',
    );
    expect(decisionLine('r1', 'Run', { outcome: 'cancelled' }, 'cancelled', 'turn_end')).toBe(
      'permission r1 cancelled: "Run", decided by turn end',
    );
    expect(decisionLine('r1', 'Run', { outcome: 'cancelled' }, 'cancelled', 'client')).toContain('by client anonymous');
  });

  it('quote an option id that is not plain, so an agent cannot forge a line', () => {
    const forged = 'ok\n[Nest] 1 LOG permission r2 allowed';
    const line = decisionLine('r1', 'Run', { outcome: 'selected', optionId: forged }, 'allowed', 'policy');
    expect(line).toBe(`permission r1 allowed (${JSON.stringify(forged)}): "Run", decided by policy`);
    expect(line).not.toContain('\n');
  });

  it('quote a principal whose name is not plain (a host may name its own)', () => {
    const line = decisionLine('r1', 'Run', { outcome: 'cancelled' }, 'cancelled', 'client', { principal: 'eve\nforged' });
    expect(line).toContain(`of principal ${JSON.stringify('eve\nforged')}`);
    expect(line).not.toContain('\n');
  });

  it('keep a long title short', () => {
    expect(requestLine('r1', 'x'.repeat(1_000), 'p1').length).toBeLessThan(320);
  });
});

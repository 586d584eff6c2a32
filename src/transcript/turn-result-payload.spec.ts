import { buildTurnResultPayload, isValidTurnResultPayload, turnStatusFromPayload } from './turn-result-payload.js';

describe('turn_result payload', () => {
  const outcome = {
    promptId: 'p1',
    state: 'completed' as const,
    stopReason: 'end_turn',
    startedAt: 2,
    endedAt: 5,
    promptText: 'hi',
    resultText: 'answer',
  };

  it('builds a valid payload and reads it back without queuedAt', () => {
    const payload = buildTurnResultPayload(outcome);
    expect(isValidTurnResultPayload(payload)).toBe(true);
    expect(turnStatusFromPayload('s', payload)).toEqual({ sessionId: 's', ...outcome });
  });

  it('applies the limits and flags', () => {
    const payload = buildTurnResultPayload({ ...outcome, promptText: 'p'.repeat(40_000), resultText: 'r'.repeat(40_000) });
    expect(payload.promptText).toHaveLength(32_768);
    expect(payload).toMatchObject({ promptTextTruncated: true, resultTruncated: true, resultCode: 'RESULT_TEXT_TRUNCATED' });
    expect(isValidTurnResultPayload(payload)).toBe(true);
  });

  it('stamps cancelledAt on a cancelled turn', () => {
    expect(buildTurnResultPayload({ ...outcome, state: 'cancelled', stopReason: 'cancelled' }).cancelledAt).toBe(5);
  });

  it('rejects invalid payloads', () => {
    const good = buildTurnResultPayload(outcome);
    expect(isValidTurnResultPayload({ ...good, state: 'running' })).toBe(false);
    expect(isValidTurnResultPayload({ ...good, endedAt: -1 })).toBe(false);
    expect(isValidTurnResultPayload({ ...good, resultTruncated: true })).toBe(false);
    expect(isValidTurnResultPayload({ ...good, state: 'error' })).toBe(false);
    expect(isValidTurnResultPayload({ ...good, resultText: 'x'.repeat(32_769) })).toBe(false);
    expect(isValidTurnResultPayload({ ...good, promptId: '' })).toBe(false);
    expect(isValidTurnResultPayload(null)).toBe(false);
  });
});

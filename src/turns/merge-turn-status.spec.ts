import fc from 'fast-check';
import { mergeTurnStatus as mergeSettled, newerSettled } from './merge-turn-status.js';
import { compactStatus } from './turn-status.js';
import type { LooseStatus as TurnStatus } from '../../test/support/loose-status.js';

const base = { sessionId: 's', promptId: 'p' };

/** The rule over loosely built statuses (specs feed it shapes a foreign provider might). */
const mergeTurnStatus = (o: TurnStatus, r: TurnStatus): TurnStatus => mergeSettled(o, r);

describe('mergeTurnStatus', () => {
  it('keeps the overlay authoritative and enriches the result from the transcript', () => {
    const overlay: TurnStatus = {
      ...base,
      state: 'cancelled',
      queuedAt: 1,
      startedAt: 2,
      endedAt: 5,
      stopReason: 'cancelled',
      promptText: 'hi',
    };
    const persisted: TurnStatus = {
      ...base,
      state: 'completed',
      startedAt: 2,
      endedAt: 9,
      stopReason: 'end_turn',
      resultText: 'partial',
      promptText: 'hi',
      originatorClientId: 'c1',
    };
    expect(mergeTurnStatus(overlay, persisted)).toEqual({
      ...overlay,
      resultText: 'partial',
      originatorClientId: 'c1',
    });
  });

  it("token_budget_exceeded is superseded by a later settled non-error record, whose usage counts (the agent's whole turn)", () => {
    const spent = { inputTokens: 40, outputTokens: 20, totalTokens: 60 };
    const whole = { inputTokens: 110, outputTokens: 30, totalTokens: 145 };
    const overlay: TurnStatus = {
      ...base,
      state: 'error',
      error: { message: 'Token budget exceeded', code: 'token_budget_exceeded' },
      queuedAt: 1,
      startedAt: 2,
      endedAt: 5,
      promptText: 'loop',
      usage: spent,
    };
    const completed: TurnStatus = { ...base, state: 'completed', startedAt: 2, endedAt: 9, stopReason: 'end_turn', usage: whole };
    expect(mergeTurnStatus(overlay, completed)).toEqual({ ...completed, promptText: 'loop', queuedAt: 1 });
    // The agent stopped as asked: the Session recorded the same error; the overlay stays authoritative, the record's usage counts.
    const stopped: TurnStatus = { ...base, state: 'error', error: overlay.error, endedAt: 7, stopReason: 'cancelled', usage: whole };
    expect(mergeTurnStatus(overlay, stopped)).toEqual({ ...overlay, usage: whole });
    // A record without usage keeps the overlay's.
    const { usage: _none, ...bare } = stopped;
    expect(mergeTurnStatus(overlay, bare).usage).toEqual(spent);
  });

  it('takes truncation flags together with the result text', () => {
    const overlay: TurnStatus = { ...base, state: 'completed', endedAt: 3 };
    const persisted: TurnStatus = {
      ...base,
      state: 'completed',
      endedAt: 3,
      resultText: 'x',
      resultTruncated: true,
      resultCode: 'RESULT_TEXT_TRUNCATED',
    };
    expect(mergeTurnStatus(overlay, persisted)).toMatchObject({ resultTruncated: true, resultCode: 'RESULT_TEXT_TRUNCATED' });
  });

  it('lets a persisted non-error supersede an overlay error, keeping promptText and queuedAt', () => {
    const overlay: TurnStatus = {
      ...base,
      state: 'error',
      queuedAt: 1,
      startedAt: 2,
      endedAt: 4,
      promptText: 'long job',
      error: { message: 'Prompt deadline exceeded', code: 'prompt_deadline_exceeded' },
    };
    const persisted: TurnStatus = { ...base, state: 'completed', startedAt: 2, endedAt: 8, stopReason: 'end_turn', resultText: 'done' };
    const merged = mergeTurnStatus(overlay, persisted);
    expect(merged).toEqual({ ...persisted, promptText: 'long job', queuedAt: 1 });
    expect(merged).not.toHaveProperty('error');
  });

  it('keeps an overlay error over a persisted error', () => {
    const overlay: TurnStatus = { ...base, state: 'error', endedAt: 4, error: { message: 'a', code: 'x' } };
    const persisted: TurnStatus = { ...base, state: 'error', endedAt: 5, error: { message: 'b' } };
    expect(mergeTurnStatus(overlay, persisted).error).toEqual({ message: 'a', code: 'x' });
  });

  it('never introduces undefined-valued keys', () => {
    const merged = mergeTurnStatus({ ...base, state: 'completed' }, { ...base, state: 'completed' });
    expect(Object.values(merged)).not.toContain(undefined);
  });
});

describe('newerSettled', () => {
  it('picks the newer endedAt, the overlay on a tie', () => {
    const o: TurnStatus = { ...base, state: 'completed', endedAt: 5 };
    const r: TurnStatus = { sessionId: 's', promptId: 'q', state: 'completed', endedAt: 6 };
    expect(newerSettled(o, r)).toBe(r);
    expect(newerSettled({ ...o, endedAt: 6 }, r).promptId).toBe('p');
  });
});

describe('mergeTurnStatus properties', () => {
  const terminal = fc.constantFrom<'completed' | 'cancelled' | 'error'>('completed', 'cancelled', 'error');
  const status = (state: 'completed' | 'cancelled' | 'error', extra: Partial<TurnStatus>): TurnStatus => ({
    sessionId: 's',
    promptId: 'p',
    state,
    endedAt: 1,
    ...(state === 'error' && { error: { message: 'boom', code: 'x' } }),
    ...extra,
  });
  const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });

  it('keeps error present exactly when state is error, never emits undefined, and lets only a non-error R supersede an O error', () => {
    fc.assert(
      fc.property(
        terminal,
        terminal,
        optional(fc.string()),
        optional(fc.string()),
        optional(fc.nat()),
        (os, rs, oText, rText, queuedAt) => {
          const o = compactStatus(status(os, { resultText: oText, queuedAt }));
          const r = compactStatus(status(rs, { resultText: rText }));
          const merged = mergeTurnStatus(o, r);
          expect(merged.error !== undefined).toBe(merged.state === 'error');
          expect(Object.values(merged)).not.toContain(undefined);
          expect(merged.state).toBe(os === 'error' && rs !== 'error' ? rs : os);
          expect(merged.queuedAt).toBe(queuedAt);
          expect(merged.resultText).toBe(os === 'error' && rs !== 'error' ? rText : (oText ?? rText));
        },
      ),
    );
  });
});

import { liveStatus, settledStatus } from './turn-status-projection.js';

const prompt = { promptId: 'p1', promptText: 'hello', queuedAt: 10 };

describe('turn status projection', () => {
  it('is queued without startedAt, running with it', () => {
    expect(liveStatus('s', prompt)).toEqual({ sessionId: 's', state: 'queued', promptId: 'p1', promptText: 'hello', queuedAt: 10 });
    expect(liveStatus('s', { ...prompt, startedAt: 11, originatorClientId: 'c' })).toEqual({
      sessionId: 's',
      state: 'running',
      promptId: 'p1',
      promptText: 'hello',
      originatorClientId: 'c',
      queuedAt: 10,
      startedAt: 11,
    });
  });

  it('keeps queuedAt on a terminal and omits what is absent', () => {
    expect(settledStatus('s', prompt, { state: 'cancelled', endedAt: 12, stopReason: 'cancelled' })).toEqual({
      sessionId: 's',
      state: 'cancelled',
      promptId: 'p1',
      promptText: 'hello',
      stopReason: 'cancelled',
      queuedAt: 10,
      endedAt: 12,
    });
  });

  it('carries error exactly when the state is error', () => {
    const error = { message: 'boom', code: 'x' };
    expect(settledStatus('s', prompt, { state: 'error', endedAt: 12, error })).toMatchObject({ state: 'error', error });
    expect(settledStatus('s', prompt, { state: 'completed', endedAt: 12, error })).not.toHaveProperty('error');
  });

  it('applies the field limits', () => {
    const long = { ...prompt, promptText: 'p'.repeat(40_000) };
    const status = settledStatus('s', long, { state: 'completed', endedAt: 1, resultText: 'r'.repeat(40_000) });
    expect(status).toMatchObject({ promptTextTruncated: true, resultTruncated: true, resultCode: 'RESULT_TEXT_TRUNCATED' });
    expect(liveStatus('s', long)).toMatchObject({ promptTextTruncated: true });
  });
});

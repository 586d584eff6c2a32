import { inFlightRecord, parseLedgerLine, reconciledRecordOf, statusOfTerminal, terminalRecordOf } from './ledger-record.js';

const S = '5c1d2a8e-7f7b-4a44-9a57-1f2e3d4c5b6a';

describe('ledger records (docs/ledger.md)', () => {
  it('an admission is in_flight, with the transcript tail when there is one', () => {
    expect(inFlightRecord('p', 5, 'u-1')).toEqual({ v: 1, promptId: 'p', state: 'in_flight', tailUuid: 'u-1', at: 5 });
    expect(inFlightRecord('p', 5)).toEqual({ v: 1, promptId: 'p', state: 'in_flight', at: 5 });
  });

  it('an admission under an Idempotency-Key carries the key, its fingerprint and its answer; a foreign one is dropped', () => {
    const idempotency = { key: 'k', fingerprint: 'f', clientId: 'c', lastEventId: 2, eventEpoch: 'e', admittedAt: 5 };
    const record = inFlightRecord('p', 5, undefined, idempotency);
    expect(record).toEqual({ v: 1, promptId: 'p', state: 'in_flight', at: 5, idempotency });
    expect(parseLedgerLine(JSON.stringify(record))).toEqual(record);
    const foreign = { ...record, idempotency: { ...idempotency, lastEventId: -1 } };
    expect(parseLedgerLine(JSON.stringify(foreign))).toEqual({ v: 1, promptId: 'p', state: 'in_flight', at: 5 });
  });

  it('reconciliation settles a dangling prompt as completed from the transcript, else as lost', () => {
    expect(reconciledRecordOf('p', true, 7)).toEqual({
      v: 1,
      promptId: 'p',
      terminal: 'completed',
      stopReason: 'reconstructed_from_transcript',
      at: 7,
    });
    expect(reconciledRecordOf('p', false, 7)).toEqual({ v: 1, promptId: 'p', terminal: 'interrupted', code: 'daemon_lost', at: 7 });
  });

  it("a terminal keeps the turn's usage: read back as the exact route answers it (token_budget_exceeded with its message), a foreign one dropped", () => {
    const usage = { inputTokens: 40, outputTokens: 20, totalTokens: 60, costUsd: 0.01 };
    const record = terminalRecordOf({
      sessionId: S,
      promptId: 'p',
      state: 'error',
      endedAt: 9,
      error: { message: 'Token budget exceeded', code: 'token_budget_exceeded' },
      usage,
    });
    expect(record).toEqual({ v: 1, promptId: 'p', terminal: 'error', code: 'token_budget_exceeded', at: 9, usage });
    const read = parseLedgerLine(JSON.stringify(record));
    expect(read).toEqual(record);
    expect(statusOfTerminal(S, read as never)).toEqual({
      sessionId: S,
      promptId: 'p',
      state: 'error',
      error: { message: 'Token budget exceeded', code: 'token_budget_exceeded' },
      endedAt: 9,
      usage,
    });
    const foreign = { ...record, usage: { inputTokens: 'many' } };
    expect(parseLedgerLine(JSON.stringify(foreign))).not.toHaveProperty('usage');
  });

  it('a terminal keeps state, stop reason and the error code — never the message', () => {
    const error = terminalRecordOf({
      sessionId: S,
      promptId: 'p',
      state: 'error',
      endedAt: 9,
      error: { message: 'secret detail of the agent', code: '-32603' },
    });
    expect(error).toEqual({ v: 1, promptId: 'p', terminal: 'error', code: '-32603', at: 9 });
    expect(JSON.stringify(error)).not.toContain('secret');
    expect(
      terminalRecordOf({ sessionId: S, promptId: 'p', state: 'completed', stopReason: 'end_turn', endedAt: 3, resultText: 'x' }),
    ).toEqual({ v: 1, promptId: 'p', terminal: 'completed', stopReason: 'end_turn', at: 3 });
    expect(terminalRecordOf({ sessionId: S, promptId: 'p', state: 'cancelled', stopReason: 'cancelled', endedAt: 4 })).toEqual({
      v: 1,
      promptId: 'p',
      terminal: 'cancelled',
      stopReason: 'cancelled',
      at: 4,
    });
  });

  it('parses its own lines and skips anything else', () => {
    const lines = [inFlightRecord('a', 1, 'u'), { v: 1, promptId: 'a', terminal: 'interrupted', code: 'daemon_lost', at: 2 }];
    for (const record of lines) expect(parseLedgerLine(JSON.stringify(record))).toEqual(record);
    for (const bad of [
      '{"v":1,"promptId":"a","state":"in_fl',
      '[]',
      'null',
      '{"v":2,"promptId":"a","state":"in_flight","at":1}',
      '{"v":1,"promptId":"","state":"in_flight","at":1}',
      '{"v":1,"promptId":"a","terminal":"exploded","at":1}',
      '{"v":1,"promptId":"a","terminal":"completed","at":"1"}',
    ]) {
      expect(parseLedgerLine(bad)).toBeUndefined();
    }
  });

  it('answers a terminal as the exact route does: interrupted is error/daemon_lost, endedAt is the record time', () => {
    expect(statusOfTerminal(S, { v: 1, promptId: 'p', terminal: 'interrupted', code: 'daemon_lost', at: 7 })).toEqual({
      sessionId: S,
      promptId: 'p',
      state: 'error',
      error: { message: expect.any(String), code: 'daemon_lost' },
      endedAt: 7,
    });
    expect(statusOfTerminal(S, { v: 1, promptId: 'p', terminal: 'cancelled', stopReason: 'cancelled', at: 8 })).toEqual({
      sessionId: S,
      promptId: 'p',
      state: 'cancelled',
      stopReason: 'cancelled',
      endedAt: 8,
    });
    expect(statusOfTerminal(S, { v: 1, promptId: 'p', terminal: 'error', code: 'session_closed', at: 9 })).toMatchObject({
      state: 'error',
      error: { message: 'Session closed', code: 'session_closed' },
    });
    const long = statusOfTerminal(S, { v: 1, promptId: 'p', terminal: 'error', code: 'x'.repeat(300), at: 9 });
    expect(long.state === 'error' && long.error.code).toHaveLength(256);
    expect(statusOfTerminal(S, { v: 1, promptId: 'p', terminal: 'completed', at: 1 })).not.toHaveProperty('queuedAt');
  });
});

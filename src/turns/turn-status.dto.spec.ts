import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { limitPromptText, limitResultText } from './rules/turn-fields.js';
import { normalizeTurnError } from './rules/normalize-turn-error.js';
import { TURN_STATUS_DTOS } from './turn-status.dto.js';

/** Validates a plain status with the class of its state; an unknown state fails. */
const check = (plain: { state: string }) => {
  const dto = TURN_STATUS_DTOS[plain.state as keyof typeof TURN_STATUS_DTOS];
  if (!dto) return ['unknown state'];
  return validateSync(plainToInstance(dto as new () => object, plain), { forbidUnknownValues: true });
};

describe('TURN_STATUS_DTOS', () => {
  const base = { sessionId: 's', promptId: 'p' };

  it('accepts every shape the service produces, limits applied', () => {
    const shapes = [
      { sessionId: 's', state: 'idle' },
      { ...base, state: 'queued', promptText: 'x', queuedAt: 1 },
      { ...base, state: 'running', promptText: 'x', queuedAt: 1, startedAt: 2 },
      {
        ...base,
        state: 'running',
        queuedAt: 1,
        startedAt: 2,
        pendingInteractions: [
          {
            requestId: 'r',
            kind: 'permission',
            createdAt: '2026-12-03T12:00:00.000Z',
            action: { type: 'execute', title: 't', input: { command: 'ls' } },
            options: [{ optionId: 'yes', label: 'Allow', kind: 'allow_once' }],
            truncated: true,
          },
        ],
      },
      {
        ...base,
        state: 'completed',
        ...limitPromptText('p'.repeat(40_000)),
        startedAt: 2,
        endedAt: 3,
        stopReason: 'end_turn',
        ...limitResultText('r'.repeat(40_000)),
        originatorClientId: 'client_1',
      },
      { ...base, state: 'cancelled', queuedAt: 1, endedAt: 3, stopReason: 'cancelled' },
      { ...base, state: 'error', endedAt: 3, error: normalizeTurnError({ message: 'm'.repeat(9_000), code: 'c'.repeat(999) }) },
    ];
    for (const shape of shapes) expect(check(shape)).toEqual([]);
  });

  it('rejects what the contract forbids: over-long text, null fields, false flags, a wrong resultCode, unknown states, missing per-state fields', () => {
    const done = { ...base, state: 'completed', endedAt: 3 };
    const bad = [
      { ...done, resultText: 'r'.repeat(32_769) },
      { ...done, promptText: 'p'.repeat(32_769) },
      { ...done, resultText: null },
      { ...done, resultTruncated: false },
      { ...done, resultCode: 'OTHER' },
      { ...base, state: 'done' },
      { ...done, queuedAt: 1.5 },
      { ...base, state: 'error', endedAt: 3, error: { message: 'm'.repeat(4_097) } },
      { ...base, state: 'error', endedAt: 3, error: { message: 'm', code: 'c'.repeat(257) } },
      { ...done, stopReason: 's'.repeat(257) },
      { ...base, state: 'completed' },
      { ...base, state: 'running', queuedAt: 1 },
      { ...base, state: 'running', queuedAt: 1, startedAt: 2, pendingInteractions: [{ requestId: 'r', kind: 'question' }] },
      { ...base, state: 'running', queuedAt: 1, startedAt: 2, pendingInteractions: null },
      { ...base, state: 'queued' },
      { ...base, state: 'error', endedAt: 3 },
    ];
    for (const shape of bad) expect([shape, check(shape)]).not.toEqual([shape, []]);
  });
});

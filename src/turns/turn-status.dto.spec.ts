import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { limitPromptText, limitResultText } from '../common/turn-fields.js';
import { normalizeTurnError } from '../common/normalize-turn-error.js';
import { TurnStatusDto } from './turn-status.dto.js';

const check = (plain: object) => validateSync(plainToInstance(TurnStatusDto, plain), { forbidUnknownValues: true });

describe('TurnStatusDto', () => {
  const base = { sessionId: 's', promptId: 'p' };

  it('accepts every shape the service produces, limits applied', () => {
    const shapes = [
      { sessionId: 's', state: 'idle' },
      { ...base, state: 'queued', promptText: 'x', queuedAt: 1 },
      { ...base, state: 'running', promptText: 'x', queuedAt: 1, startedAt: 2 },
      { ...base, state: 'completed', ...limitPromptText('p'.repeat(40_000)), startedAt: 2, endedAt: 3, stopReason: 'end_turn', ...limitResultText('r'.repeat(40_000)), originatorClientId: 'client_1' },
      { ...base, state: 'error', endedAt: 3, error: normalizeTurnError({ message: 'm'.repeat(9_000), code: 'c'.repeat(999) }) },
    ];
    for (const shape of shapes) expect(check(shape)).toEqual([]);
  });

  it('rejects what the spec forbids: over-long text, null fields, false flags, a wrong resultCode, unknown states', () => {
    const bad = [
      { ...base, state: 'completed', resultText: 'r'.repeat(32_769) },
      { ...base, state: 'completed', promptText: 'p'.repeat(32_769) },
      { ...base, state: 'completed', resultText: null },
      { ...base, state: 'completed', resultTruncated: false },
      { ...base, state: 'completed', resultCode: 'OTHER' },
      { ...base, state: 'done' },
      { ...base, state: 'completed', queuedAt: 1.5 },
      { ...base, state: 'error', error: { message: 'm'.repeat(4_097) } },
      { ...base, state: 'error', error: { message: 'm', code: 'c'.repeat(257) } },
      { ...base, state: 'completed', stopReason: 's'.repeat(257) },
    ];
    for (const shape of bad) expect(check(shape)).not.toEqual([]);
  });
});

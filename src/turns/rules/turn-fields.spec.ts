import { limitIdentifier, limitPromptText, limitResultText, limitTurnFields, promptTextOf } from './turn-fields.js';

describe('promptTextOf', () => {
  it('takes the first non-empty text block', () => {
    expect(promptTextOf([{ type: 'text', text: '' }, { type: 'image' }, { type: 'text', text: 'hi' }])).toBe('hi');
  });
  it('says [image] for an image-only prompt and "" otherwise', () => {
    expect(promptTextOf([{ type: 'image', data: 'x', mimeType: 'image/png' }])).toBe('[image]');
    expect(promptTextOf([{ type: 'text', text: '' }])).toBe('');
  });
});

describe('field limits', () => {
  it('keeps text of exactly 32,768 code units without flags', () => {
    expect(limitResultText('r'.repeat(32_768))).toEqual({ resultText: 'r'.repeat(32_768) });
    expect(limitPromptText('p'.repeat(32_768))).toEqual({ promptText: 'p'.repeat(32_768) });
  });
  it('flags a cut result with resultCode, and a cut prompt', () => {
    const result = limitResultText('r'.repeat(32_769));
    expect(result.resultText).toHaveLength(32_768);
    expect(result).toMatchObject({ resultTruncated: true, resultCode: 'RESULT_TEXT_TRUNCATED' });
    expect(limitPromptText('p'.repeat(40_000))).toMatchObject({ promptTextTruncated: true });
  });
  it('cuts identifiers to 256', () => {
    expect(limitIdentifier('i'.repeat(300))).toHaveLength(256);
  });
});

describe('limitTurnFields', () => {
  it('cuts every text field by its own limit and keeps absent fields absent', () => {
    const out = limitTurnFields({
      promptId: 'p'.repeat(300),
      promptText: 't'.repeat(40_000),
      originatorClientId: 'c'.repeat(300),
      stopReason: 's'.repeat(300),
      error: { message: 'm'.repeat(5_000), code: 'x' },
      resultText: 'r'.repeat(40_000),
    });
    expect(out.promptId).toHaveLength(256);
    expect(out.originatorClientId).toHaveLength(256);
    expect(out.stopReason).toHaveLength(256);
    expect(out).toMatchObject({ promptTextTruncated: true, resultTruncated: true, resultCode: 'RESULT_TEXT_TRUNCATED' });
    expect(out.error).toEqual({ message: 'm'.repeat(4_096), code: 'x', messageTruncated: true });
    expect(limitTurnFields({ promptId: 'p' })).toEqual({ promptId: 'p' });
  });
});

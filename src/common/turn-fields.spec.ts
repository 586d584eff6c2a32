import { limitIdentifier, limitPromptText, limitResultText, promptTextOf } from './turn-fields.js';

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

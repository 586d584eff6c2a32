import fc from 'fast-check';
import { truncateCodeUnits } from './truncate-code-units.js';

describe('truncateCodeUnits', () => {
  it('keeps a string at or under the limit untouched', () => {
    expect(truncateCodeUnits('abc', 3)).toEqual({ text: 'abc', truncated: false });
    expect(truncateCodeUnits('', 0)).toEqual({ text: '', truncated: false });
  });

  it('cuts to exactly the limit', () => {
    expect(truncateCodeUnits('abcdef', 4)).toEqual({ text: 'abcd', truncated: true });
  });

  it('never leaves a lone high surrogate at the cut', () => {
    const text = 'ab\u{1F600}cd'; // a, b, high, low, c, d
    expect(truncateCodeUnits(text, 3)).toEqual({ text: 'ab', truncated: true });
    expect(truncateCodeUnits(text, 4)).toEqual({ text: 'ab\u{1F600}', truncated: true });
  });

  it('is bounded, a prefix, and well-formed for any input', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.nat(40), (text, limit) => {
        const { text: out, truncated } = truncateCodeUnits(text, limit);
        expect(out.length).toBeLessThanOrEqual(limit);
        expect(text.startsWith(out)).toBe(true);
        expect(truncated).toBe(text.length > limit);
        expect(out.isWellFormed()).toBe(true);
        if (truncated) expect(out.length).toBeGreaterThanOrEqual(limit - 1);
      }),
    );
  });
});

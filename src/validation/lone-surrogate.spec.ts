import fc from 'fast-check';
import { findLoneSurrogate } from './lone-surrogate.js';

describe('findLoneSurrogate', () => {
  it('names the first string holding a lone surrogate, in document order', () => {
    expect(
      findLoneSurrogate({
        prompt: [
          { type: 'text', text: 'ok' },
          { type: 'text', text: 'a\ud800b' },
        ],
      }),
    ).toBe('prompt.1.text');
    expect(findLoneSurrogate({ a: '\udc00', b: '\ud800' })).toBe('a');
    expect(findLoneSurrogate({ ['k\ud800']: 1 })).toBe('k\ud800');
    expect(findLoneSurrogate('\ud83d')).toBe('');
  });

  it('accepts well-formed text, pairs included', () => {
    expect(findLoneSurrogate({ prompt: [{ type: 'text', text: 'emoji 😀 and \ud83d\ude00' }], n: 1, z: null })).toBeUndefined();
  });

  it('agrees with a UTF-8 round trip on any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string({ unit: 'binary' }), (json, text) => {
        const value = { json, text };
        const survivesUtf8 = (s: string) => Buffer.from(s, 'utf8').toString('utf8') === s;
        const strings: string[] = [];
        JSON.stringify(value, (key, v) => {
          strings.push(key);
          if (typeof v === 'string') strings.push(v);
          return v;
        });
        expect(findLoneSurrogate(value) === undefined).toBe(strings.every(survivesUtf8));
      }),
    );
  });
});

import fc from 'fast-check';
import { canonicalJson, requestFingerprint } from './request-fingerprint.js';

describe('canonicalJson / requestFingerprint', () => {
  it('sorts keys at every depth and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}');
  });

  it('drops undefined members as JSON does; an absent body reads as null', () => {
    expect(canonicalJson({ a: undefined, b: 'x' })).toBe('{"b":"x"}');
    expect(canonicalJson(undefined)).toBe('null');
  });

  it('is the same fingerprint for the same body in any key order, and another for another body', () => {
    const a = { prompt: [{ type: 'text', text: 'hi' }], deadlineMs: 5 };
    const b = { deadlineMs: 5, prompt: [{ text: 'hi', type: 'text' }] };
    expect(requestFingerprint(a)).toBe(requestFingerprint(b));
    expect(requestFingerprint(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(requestFingerprint({ ...a, deadlineMs: 6 })).not.toBe(requestFingerprint(a));
    expect(requestFingerprint({ prompt: [{ type: 'text', text: 'hi ' }] })).not.toBe(
      requestFingerprint({ prompt: [{ type: 'text', text: 'hi' }] }),
    );
  });

  it('parses back to a value equal to the input (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });

  it('does not depend on key insertion order (property)', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (record) => {
        const reversed = Object.fromEntries(Object.entries(record).reverse());
        expect(canonicalJson(reversed)).toBe(canonicalJson(record));
      }),
    );
  });
});

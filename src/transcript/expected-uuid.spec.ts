import { ExpectedUuid } from './expected-uuid.js';

const at = (text: string) => Buffer.from(`"${text}",`);

describe('ExpectedUuid', () => {
  it('carries a cursor value through: undefined before the head, a uuid, null past the root', () => {
    expect(ExpectedUuid.of(undefined).value()).toBeUndefined();
    expect(ExpectedUuid.of(undefined).any).toBe(true);
    expect(ExpectedUuid.of('u-1').value()).toBe('u-1');
    expect(ExpectedUuid.of('ü').value()).toBe('ü');
    expect(ExpectedUuid.of(null).value()).toBeNull();
    expect(ExpectedUuid.of(null).pastRoot).toBe(true);
  });

  it('compares a plain JSON string in place: equal, different, or undecided when an escape is in the way', () => {
    const expected = ExpectedUuid.of('abc');
    const bytes = (text: string) => at(text);
    const compare = (text: string) => expected.matchesStringAt(bytes(text), 1, bytes(text).length);
    expect(compare('abc')).toBe(true);
    expect(compare('abd')).toBe(false);
    expect(compare('ab')).toBe(false);
    expect(compare('abcd')).toBe(false);
    expect(compare('ab\\u0063')).toBeUndefined();
    expect(compare('abc\\"')).toBeUndefined();
    expect(ExpectedUuid.of(null).matchesStringAt(bytes('abc'), 1, 5)).toBe(false);
    expect(ExpectedUuid.of(undefined).matchesStringAt(bytes('abc'), 1, 5)).toBeUndefined();
  });

  it('expects a parent read in place, and any string set later', () => {
    const expected = ExpectedUuid.of(undefined);
    const source = Buffer.from('xx"parent-1"');
    expected.set(source, 3, 11);
    expect(expected.value()).toBe('parent-1');
    expect(expected.matchesStringAt(Buffer.from('"parent-1"'), 1, 10)).toBe(true);
    expect(expected.matchesString('parent-1')).toBe(true);
    expect(expected.matchesString('parent-2')).toBe(false);
    const long = 'x'.repeat(1_000);
    expected.setString(long);
    expect(expected.matchesString(long)).toBe(true);
    expect(expected.byteLength).toBe(1_000);
    expected.setString(null);
    expect(expected.pastRoot).toBe(true);
    expect(expected.matchesString(long)).toBe(false);
  });
});

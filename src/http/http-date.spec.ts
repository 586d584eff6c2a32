import fc from 'fast-check';
import { parseHttpDate } from './http-date.js';

const NOW = Date.UTC(2026, 11, 3);

describe('parseHttpDate', () => {
  it('reads the three forms of RFC 9110 §5.6.7', () => {
    const at = Date.UTC(1994, 10, 6, 8, 49, 37);
    expect(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT', NOW)).toBe(at);
    expect(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT', NOW)).toBe(at);
    expect(parseHttpDate('Sun Nov  6 08:49:37 1994', NOW)).toBe(at);
    expect(parseHttpDate('Sun Nov 16 08:49:37 1994', NOW)).toBe(Date.UTC(1994, 10, 16, 8, 49, 37));
  });

  it('reads a two-digit year as the most recent past one unless within the next 50 years', () => {
    expect(parseHttpDate('Thursday, 01-Jan-76 00:00:00 GMT', NOW)).toBe(Date.UTC(2076, 0, 1));
    expect(parseHttpDate('Sunday, 01-Jan-77 00:00:00 GMT', NOW)).toBe(Date.UTC(1977, 0, 1));
  });

  it('reads back every date toUTCString writes (property)', () => {
    fc.assert(
      fc.property(fc.date({ min: new Date(Date.UTC(1970, 0, 1)), max: new Date(Date.UTC(9999, 11, 31)), noInvalidDate: true }), (date) => {
        const seconds = Math.floor(date.getTime() / 1000) * 1000;
        expect(parseHttpDate(new Date(seconds).toUTCString(), NOW)).toBe(seconds);
      }),
    );
  });

  it.each([
    '-1',
    '0',
    '1.5',
    'soon',
    '2026-12-03T10:00:00Z',
    'Sun, 06 Nov 1994 08:49:37 UTC',
    'Sun, 6 Nov 1994 08:49:37 GMT',
    'sun, 06 nov 1994 08:49:37 gmt',
    ' Sun, 06 Nov 1994 08:49:37 GMT',
    'Sun, 31 Feb 1994 08:49:37 GMT',
    'Sun, 06 Nov 1994 24:00:00 GMT',
    'Sun, 06 Nov 1994 08:60:00 GMT',
    'Sunday, 06-Nov-1994 08:49:37 GMT',
    'Sun Nov 6 08:49:37 1994',
  ])('ignores %j', (text) => {
    expect(parseHttpDate(text, NOW)).toBeUndefined();
  });
});

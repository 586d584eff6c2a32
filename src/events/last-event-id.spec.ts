import fc from 'fast-check';
import { parseLastEventId } from './last-event-id.js';

describe('parseLastEventId', () => {
  it('reads decimal safe integers', () => {
    expect(parseLastEventId('0')).toBe(0);
    expect(parseLastEventId('42')).toBe(42);
    expect(parseLastEventId(String(Number.MAX_SAFE_INTEGER))).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('treats everything else as absent', () => {
    for (const header of [
      undefined,
      '',
      '-1',
      '+1',
      '1.5',
      '1e3',
      ' 1',
      '0x10',
      String(Number.MAX_SAFE_INTEGER + 1),
      '9'.repeat(20),
      '9'.repeat(400),
    ]) {
      expect(parseLastEventId(header)).toBeUndefined();
    }
  });

  it('answers only integers it can count exactly', () => {
    fc.assert(
      fc.property(fc.string(), (header) => {
        const id = parseLastEventId(header);
        if (id !== undefined) {
          expect(Number.isSafeInteger(id)).toBe(true);
          expect(String(id)).toBe(header.replace(/^0+(?=\d)/, ''));
        }
      }),
    );
  });
});

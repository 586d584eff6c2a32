import { parseWaitRequest } from './wait-request.js';

describe('parseWaitRequest', () => {
  it('reads waitMs, 0 to the maximum', () => {
    expect(parseWaitRequest('0', undefined, 30_000)).toEqual({ waitMs: 0 });
    expect(parseWaitRequest('30000', undefined, 30_000)).toEqual({ waitMs: 30_000 });
    expect(parseWaitRequest(undefined, undefined, 30_000)).toEqual({ waitMs: 0 });
  });

  it.each(['-1', '1.5', 'abc', '', '30001', '1e3', ' 5'])('refuses waitMs=%p with invalid_wait_ms', (value) => {
    expect(() => parseWaitRequest(value, undefined, 30_000)).toThrow(expect.objectContaining({ status: 400, code: 'invalid_wait_ms' }));
  });

  it('reads Prefer: wait=S in seconds, capped, and says what it applied', () => {
    expect(parseWaitRequest(undefined, 'wait=5', 30_000)).toEqual({ waitMs: 5_000, preferenceApplied: 5 });
    expect(parseWaitRequest(undefined, 'respond-async, wait=100', 30_000)).toEqual({ waitMs: 30_000, preferenceApplied: 30 });
    expect(parseWaitRequest(undefined, 'return=minimal', 30_000)).toEqual({ waitMs: 0 });
    expect(() => parseWaitRequest(undefined, 'wait=soon', 30_000)).toThrow(expect.objectContaining({ code: 'invalid_wait_ms' }));
  });

  it("reads ?activity= as a flag, and refuses anything else with its own code, not the wait's", () => {
    expect(parseWaitRequest('5', undefined, 30_000, 'true')).toEqual({ waitMs: 5, activity: true });
    expect(parseWaitRequest('5', undefined, 30_000, ['1', '0'])).toEqual({ waitMs: 5, activity: true });
    expect(parseWaitRequest('5', undefined, 30_000, 'false')).toEqual({ waitMs: 5 });
    for (const activity of ['maybe', '', 'TRUE']) {
      expect(() => parseWaitRequest('5', undefined, 30_000, activity)).toThrow(
        expect.objectContaining({ status: 400, code: 'invalid_activity', message: 'activity must be true or false' }),
      );
    }
  });

  it('lets the query win over the header', () => {
    expect(parseWaitRequest('250', 'wait=10', 30_000)).toEqual({ waitMs: 250 });
  });
});

import { ERROR_CATALOGUE } from '../../errors/error-catalogue.js';
import { WAIT_DEFAULTS } from './wait.settings.js';

describe('WAIT_SETTINGS', () => {
  it("is what invalid_wait_ms's documented example shows (errors/ declares it without importing turns/)", () => {
    expect(ERROR_CATALOGUE.invalid_wait_ms.details.maxWaitMs.example).toBe(WAIT_DEFAULTS.maxWaitMs);
  });
});

import { apiError, ERROR_CATALOGUE, type ApiErrorCode, type ErrorCatalogueEntry, shuttingDown } from './api-errors.js';
import { apiErrorHttpMessage } from './send-api-error.js';

describe('the error catalogue', () => {
  it('gives every answer of a code the Retry-After its entry names, and no other code one', () => {
    for (const [code, entry] of Object.entries(ERROR_CATALOGUE) as [ApiErrorCode, ErrorCatalogueEntry][]) {
      expect({ code, retryAfter: apiError(code).headers['Retry-After'] }).toEqual({
        code,
        retryAfter: entry.retryAfter === undefined ? undefined : String(entry.retryAfter),
      });
    }
    expect(shuttingDown()).toMatchObject({ code: 'too_many_waiters', message: 'Shutting down', headers: { 'Retry-After': '1' } });
  });

  it('says when to retry on every 503', () => {
    const unavailable = Object.values(ERROR_CATALOGUE).filter((entry: ErrorCatalogueEntry) => entry.status === 503);
    expect(unavailable.every((entry: ErrorCatalogueEntry) => entry.retryAfter !== undefined)).toBe(true);
  });

  it('keeps catalogued headers beside the Retry-After and any given', () => {
    expect(apiError('unauthorized', {}, { headers: { 'X-A': '1' } }).headers).toEqual({ 'WWW-Authenticate': 'Bearer', 'X-A': '1' });
  });

  it('writes a whole HTTP/1.1 answer for a socket without a response object', () => {
    const body = '{"error":"Request timeout","code":"request_timeout"}';
    expect(apiErrorHttpMessage(apiError('request_timeout'))).toBe(
      `HTTP/1.1 408 Request Timeout\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
});

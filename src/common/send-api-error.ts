import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { ApiException } from './api-exception.js';

/**
 * Writes an API error on a raw Node response, as `ApiExceptionFilter` answers
 * it: for the code that runs before the HTTP framework (the browser walls,
 * the cluster router).
 */
export function sendApiError(res: ServerResponse, error: ApiException, headers: OutgoingHttpHeaders = {}): void {
  const body = JSON.stringify(error.toBody());
  res.writeHead(error.getStatus(), {
    ...error.headers,
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

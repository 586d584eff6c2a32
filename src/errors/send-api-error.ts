import { STATUS_CODES, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
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

/**
 * An API error as a whole HTTP/1.1 response that closes the connection: for a
 * socket Node gave up parsing (`clientError`), where there is no response object.
 */
export function apiErrorHttpMessage(error: ApiException): string {
  const body = JSON.stringify(error.toBody());
  const status = error.getStatus();
  const headers = Object.entries(error.headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${headers.join('')}Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

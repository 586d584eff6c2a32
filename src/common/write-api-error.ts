import type { ServerResponse } from 'node:http';
import type { ApiException } from './api-exception.js';

/** Answers `error` as its JSON body, on a bare Node response (code that runs before any framework). */
export function writeApiError(res: ServerResponse, error: ApiException, headers: Record<string, string> = {}): void {
  const body = JSON.stringify(error.toBody());
  res.writeHead(error.getStatus(), {
    ...error.headers,
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

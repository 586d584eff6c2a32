import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { CheckedTarget } from './webhook-url-guard.js';

/** What one attempt got back. */
export interface AttemptResult {
  status: number;
  retryAfter?: string;
}

/**
 * POSTs one signed webhook to the address the SSRF guard checked: the lookup
 * answers with that address only, so no second DNS query can point the
 * connection elsewhere. Redirects are not followed (a 3xx is an answer like
 * any other non-2xx). The body of the answer is not read beyond its headers.
 * Rejects on a connection failure, when `timeoutMs` passes without an
 * answer, or when `signal` aborts (shutdown).
 */
export function sendWebhook(
  target: CheckedTarget,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<AttemptResult> {
  const { url, address } = target;
  const lookup: LookupFunction = (_hostname, options, callback) => {
    if (options.all) (callback as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [address]);
    else callback(null, address.address, address.family);
  };
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      url,
      {
        method: 'POST',
        lookup,
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': 'nest-turn-status',
        },
        signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs),
      },
      (res: IncomingMessage) => {
        const retryAfter = res.headers['retry-after'];
        resolve({ status: res.statusCode ?? 0, ...(typeof retryAfter === 'string' && { retryAfter }) });
        res.resume();
        res.on('error', () => undefined);
      },
    );
    req.on('error', (error: Error) => reject(error.name === 'AbortError' ? new Error('timeout') : error));
    req.end(body);
  });
}

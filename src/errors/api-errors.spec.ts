import {
  apiError,
  apiErrorExample,
  clusterUnavailable,
  ERROR_CATALOGUE,
  promptQueueFull,
  shuttingDown,
  type ApiErrorCode,
  type ErrorCatalogueEntry,
} from './api-errors.js';
import { errorDetailProperties, ErrorResponseDto } from './error-response.dto.js';
import { apiErrorHttpMessage } from './send-api-error.js';

const entries = Object.entries(ERROR_CATALOGUE) as [ApiErrorCode, ErrorCatalogueEntry][];

describe('the error catalogue', () => {
  it('gives every answer of a code the Retry-After its entry names, and no other code one', () => {
    for (const [code, entry] of entries) {
      expect({ code, retryAfter: apiError(code, {} as never).headers['Retry-After'] }).toEqual({
        code,
        retryAfter: entry.retryAfter === undefined ? undefined : String(entry.retryAfter),
      });
    }
  });

  it('says when to retry on every 503', () => {
    const unavailable = entries.filter(([, entry]) => entry.status === 503);
    expect(unavailable.filter(([, entry]) => entry.retryAfter === undefined)).toEqual([]);
  });

  it('gives a shutdown its own code: 503 with Retry-After, and no details', () => {
    const error = shuttingDown();
    expect({ status: error.getStatus(), headers: error.headers, body: error.toBody() }).toEqual({
      status: 503,
      headers: { 'Retry-After': '1' },
      body: { error: 'Shutting down', code: 'shutting_down' },
    });
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

describe('typed details', () => {
  it('puts the details a builder is given in the body, after error and code', () => {
    expect(promptQueueFull('s', 5, 4).toBody()).toEqual({
      error: 'Too many pending prompts for this session',
      code: 'prompt_queue_full',
      sessionId: 's',
      limit: 5,
      pendingCount: 4,
    });
    expect(clusterUnavailable().toBody()).toEqual({
      error: 'The cluster directory or the owner node is unreachable',
      code: 'cluster_unavailable',
    });
  });

  it('refuses, at compile time, details its entry does not declare (checked by tsc)', () => {
    const refused = [
      // @ts-expect-error session_not_found declares a sessionId every body carries
      () => apiError('session_not_found'),
      // @ts-expect-error sessionId is a string
      () => apiError('session_not_found', { sessionId: 1 }),
      // @ts-expect-error prompt_queue_full also declares limit and pendingCount
      () => apiError('prompt_queue_full', { sessionId: 's' }),
      // @ts-expect-error unauthorized declares no details
      () => apiError('unauthorized', { sessionId: 's' }),
      // @ts-expect-error cluster_unavailable's details are sessionId and node
      () => clusterUnavailable({ limit: 1 }),
    ];
    // At run time nothing is checked: each still builds an exception of its code.
    expect(refused.map((build) => build().code)).toEqual([
      'session_not_found',
      'session_not_found',
      'prompt_queue_full',
      'unauthorized',
      'cluster_unavailable',
    ]);
  });

  it('documents every code with an example of each detail it declares, and nothing else', () => {
    for (const [code, entry] of entries) {
      const example = apiErrorExample(code);
      expect(Object.keys(example)).toEqual(['error', 'code', ...Object.keys(entry.details ?? {})]);
      expect(example).toMatchObject({ error: entry.message, code });
      for (const [name, detail] of Object.entries(entry.details ?? {})) {
        expect([code, name, typeof example[name]]).toEqual([code, name, detail.type === 'integer' ? 'number' : 'string']);
      }
    }
  });

  it('gives ErrorResponseDto one property per detail, saying for each code what it means there', () => {
    const properties = errorDetailProperties();
    const declared = new Set(entries.flatMap(([, entry]) => Object.keys(entry.details ?? {})));
    expect(Object.keys(properties).sort()).toEqual([...declared].sort());
    expect(properties.pendingCount).toEqual({
      type: 'integer',
      description: 'prompt_queue_full: prompts pending now, running included.',
      example: 5,
    });
    // One name that means something else per code says each meaning.
    expect(properties.limit!.description).toContain('too_many_waiters: the most held requests at once.');
    expect(properties.limit!.description).toContain('prompt_queue_full: the most prompts a session may have pending, running included.');
    expect(properties.node!.description).toBe('session_on_other_node, cluster_unavailable: the node that owns the session.');
    // Its TypeScript fields are the same details, typed (checked by tsc).
    const body: ErrorResponseDto = Object.assign(new ErrorResponseDto(), { error: 'x', code: 'too_many_waiters', limit: 3 });
    // @ts-expect-error limit is a number
    body.limit = '3';
    // @ts-expect-error no code declares this detail
    body.sessionID = 's';
    expect(body).toMatchObject({ limit: '3', sessionID: 's' });
  });
});

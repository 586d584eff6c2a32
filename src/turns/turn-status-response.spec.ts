import { serializeTurnStatus } from './serialized-turn-status.js';
import { LIVE_POLL_HINT_SECONDS, turnStatusResponse } from './turn-status-response.js';
import type { TurnStatus } from './turn-status.js';

const turnStatusEtag = (status: TurnStatus) => serializeTurnStatus(status).etag;

describe('the ETag of a status', () => {
  const status: TurnStatus = { sessionId: 's', state: 'completed', promptId: 'p', endedAt: 1, resultText: 'a' };

  it('is a quoted strong validator that changes with what the client sees', () => {
    const etag = turnStatusEtag(status);
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(turnStatusEtag({ ...status })).toBe(etag);
    expect(turnStatusEtag({ ...status, resultText: 'b' })).not.toBe(etag);
    expect(turnStatusEtag({ ...status, state: 'error', error: { message: 'x' } })).not.toBe(etag);
  });
});

describe('turnStatusResponse', () => {
  const settled: TurnStatus = { sessionId: 's', state: 'completed', promptId: 'p', endedAt: 1, resultText: 'a' };
  const running: TurnStatus = { sessionId: 's', state: 'running', promptId: 'p', queuedAt: 1, startedAt: 2 };

  it('sends the status as its JSON text with no-cache and its ETag', () => {
    const response = turnStatusResponse(settled, undefined);
    expect(JSON.parse(response.body)).toEqual(settled);
    expect(response.headers).toEqual({
      'Cache-Control': 'no-cache',
      ETag: turnStatusEtag(settled),
      'Content-Type': 'application/json; charset=utf-8',
    });
    expect(response.notModified).toBe(false);
  });

  it('asks a poller of a live prompt to come back after Retry-After', () => {
    expect(turnStatusResponse(running, undefined).headers['Retry-After']).toBe(String(LIVE_POLL_HINT_SECONDS));
    expect(turnStatusResponse({ ...running, state: 'queued', startedAt: undefined } as TurnStatus, undefined).headers['Retry-After']).toBe(
      '1',
    );
  });

  it('is a 304 when If-None-Match names the ETag (in a list, weak, or *), and not for another one', () => {
    const etag = turnStatusEtag(settled);
    for (const ifNoneMatch of [etag, `"x", ${etag}`, `W/${etag}`, '*']) {
      expect(turnStatusResponse(settled, ifNoneMatch)).toMatchObject({
        notModified: true,
        etag,
        headers: { 'Cache-Control': 'no-cache', ETag: etag },
      });
      expect(turnStatusResponse(settled, ifNoneMatch).headers['Content-Type']).toBeUndefined();
    }
    expect(turnStatusResponse(settled, '"other"').notModified).toBe(false);
  });

  it('answers the same object with the same text, serialized once', () => {
    expect(turnStatusResponse(settled, undefined).body).toBe(turnStatusResponse(settled, undefined).body);
  });
});

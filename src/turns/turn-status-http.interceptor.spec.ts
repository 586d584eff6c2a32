import { turnStatusEtag } from './turn-status-http.interceptor.js';
import type { TurnStatus } from './turn-status.js';

describe('turnStatusEtag', () => {
  const status: TurnStatus = { sessionId: 's', state: 'completed', promptId: 'p', endedAt: 1, resultText: 'a' };

  it('is a quoted strong validator that changes with what the client sees', () => {
    const etag = turnStatusEtag(status);
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(turnStatusEtag({ ...status })).toBe(etag);
    expect(turnStatusEtag({ ...status, resultText: 'b' })).not.toBe(etag);
    expect(turnStatusEtag({ ...status, state: 'error', error: { message: 'x' } })).not.toBe(etag);
  });
});

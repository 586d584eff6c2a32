import { encodePageToken, pageTurns, parseTurnListQuery, turnPosition } from './turn-page.js';
import type { TurnStatus } from '../turn-status.js';

const S = 's1';
const done = (promptId: string, at: number, state: 'completed' | 'error' = 'completed'): TurnStatus & { promptId: string } =>
  state === 'error'
    ? { sessionId: S, promptId, state, queuedAt: at, endedAt: at + 5, error: { message: 'x' } }
    : { sessionId: S, promptId, state, queuedAt: at, endedAt: at + 5 };

describe('parseTurnListQuery', () => {
  it('defaults to 20 turns of every state, from the newest', () => {
    expect(parseTurnListQuery(S, {})).toEqual({ states: undefined, limit: 20 });
  });

  it('reads a comma list of states and a limit from 1 to 100', () => {
    const query = parseTurnListQuery(S, { state: 'completed, error', limit: '100' });
    expect([...query.states!]).toEqual(['completed', 'error']);
    expect(query.limit).toBe(100);
    expect(parseTurnListQuery(S, { limit: ['1', '7'] }).limit).toBe(1);
  });

  it.each(['done', '', 'completed,', 'Completed'])('refuses state=%p with invalid_turn_state', (state) => {
    expect(() => parseTurnListQuery(S, { state })).toThrow(expect.objectContaining({ status: 400, code: 'invalid_turn_state' }));
  });

  it.each(['0', '101', '1.5', 'ten', '', '-1', '0100'])('refuses limit=%p with invalid_limit', (limit) => {
    expect(() => parseTurnListQuery(S, { limit })).toThrow(expect.objectContaining({ status: 400, code: 'invalid_limit' }));
  });

  it('takes back a token it gave, for the same filter only', () => {
    const token = encodePageToken({ at: 5, promptId: 'p5' }, new Set(['completed']));
    expect(parseTurnListQuery(S, { state: 'completed', pageToken: token }).after).toEqual({ at: 5, promptId: 'p5' });
    expect(() => parseTurnListQuery(S, { pageToken: token })).toThrow(
      expect.objectContaining({ code: 'invalid_page_token', details: { sessionId: S } }),
    );
    expect(() => parseTurnListQuery(S, { state: 'error', pageToken: token })).toThrow(
      expect.objectContaining({ code: 'invalid_page_token' }),
    );
  });

  it.each(['%%%', 'bm90IGpzb24', Buffer.from('[2,1,"p",""]').toString('base64url'), 'A'.repeat(2000)])(
    'refuses a token it did not give (%p)',
    (pageToken) => {
      expect(() => parseTurnListQuery(S, { pageToken })).toThrow(expect.objectContaining({ status: 400, code: 'invalid_page_token' }));
    },
  );
});

describe('pageTurns', () => {
  const turns = [done('a', 10), done('b', 30), done('c', 20, 'error'), done('d', 30)];

  it('orders newest first by admission, the promptId breaking a tie, and pages with a token', () => {
    const first = pageTurns(turns, { limit: 3 });
    expect(first.turns.map((t) => (t as { promptId: string }).promptId)).toEqual(['d', 'b', 'c']);
    const next = parseTurnListQuery(S, { limit: '3', pageToken: first.nextPageToken });
    const second = pageTurns(turns, next);
    expect(second.turns.map((t) => (t as { promptId: string }).promptId)).toEqual(['a']);
    expect(second.nextPageToken).toBeUndefined();
  });

  it('gives no token when the page holds the rest exactly', () => {
    expect(pageTurns(turns, { limit: 4 }).nextPageToken).toBeUndefined();
  });

  it('filters by state before it counts', () => {
    const page = pageTurns(turns, { limit: 1, states: new Set(['error']) });
    expect(page.turns).toEqual([turns[2]]);
    expect(page.nextPageToken).toBeUndefined();
  });

  it('places a turn by admission, else start, else end', () => {
    expect(turnPosition({ sessionId: S, promptId: 'p', state: 'completed', startedAt: 7, endedAt: 9 })).toEqual({ at: 7, promptId: 'p' });
    expect(turnPosition({ sessionId: S, promptId: 'p', state: 'cancelled', endedAt: 9 })).toEqual({ at: 9, promptId: 'p' });
  });
});

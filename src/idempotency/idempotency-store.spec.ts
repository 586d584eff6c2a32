import { ApiException } from '../errors/api-exception.js';
import { ManualClock } from '../../test/support/manual-clock.js';
import { IdempotencyStore } from './idempotency-store.js';

const answer = (promptId: string) => ({ status: 202, body: { promptId } });
const failure = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    if (error instanceof ApiException) return { status: error.getStatus(), code: error.toBody().code, headers: error.headers };
    throw error;
  }
  throw new Error('did not throw');
};

describe('IdempotencyStore', () => {
  let clock: ManualClock;
  let store: IdempotencyStore;
  beforeEach(() => {
    clock = new ManualClock();
    store = new IdempotencyStore({ maxKeys: 3, ttlMs: 100 }, clock);
  });

  it('processes the first request, then replays its answer for the same fingerprint', () => {
    expect(store.begin('k', 'f')).toBeUndefined();
    store.complete('k', answer('p1'));
    expect(store.begin('k', 'f')).toEqual(answer('p1'));
    expect(store.begin('k', 'f')).toEqual(answer('p1'));
  });

  it('answers 422 idempotency_key_reused for another fingerprint, in flight or done', () => {
    store.begin('k', 'f');
    expect(failure(() => store.begin('k', 'other'))).toMatchObject({ status: 422, code: 'idempotency_key_reused' });
    store.complete('k', answer('p1'));
    expect(failure(() => store.begin('k', 'other'))).toMatchObject({ status: 422, code: 'idempotency_key_reused' });
  });

  it('answers 409 idempotency_key_in_flight with Retry-After: 1 while the first is processed', () => {
    store.begin('k', 'f');
    expect(failure(() => store.begin('k', 'f'))).toEqual({
      status: 409,
      code: 'idempotency_key_in_flight',
      headers: { 'Retry-After': '1' },
    });
  });

  it('frees the key of a first request that failed, and keeps one that succeeded', () => {
    store.begin('k', 'f');
    store.abandon('k');
    expect(store.begin('k', 'other')).toBeUndefined();
    store.complete('k', answer('p2'));
    store.abandon('k');
    expect(store.begin('k', 'other')).toEqual(answer('p2'));
  });

  it('forgets a key its TTL after the first use', () => {
    store.begin('k', 'f');
    store.complete('k', answer('p1'));
    clock.time += 99;
    expect(store.begin('k', 'f')).toEqual(answer('p1'));
    clock.time += 1;
    expect(store.begin('k', 'f')).toBeUndefined();
  });

  it('holds at most maxKeys, the oldest first out', () => {
    for (const key of ['a', 'b', 'c', 'd']) {
      store.begin(key, 'f');
      store.complete(key, answer(key));
    }
    expect(store.size).toBe(3);
    expect(store.begin('a', 'f')).toBeUndefined();
    expect(store.size).toBe(3);
    expect(store.begin('c', 'f')).toEqual(answer('c'));
    expect(store.begin('b', 'f')).toBeUndefined();
  });

  it('seeds answers given before unless expired or already known', () => {
    expect(store.seed('s', 'f', answer('old'), clock.time - 100)).toBe(false);
    expect(store.seed('s', 'f', answer('p'), clock.time - 99)).toBe(true);
    expect(store.seed('s', 'f', answer('other'), clock.time)).toBe(false);
    expect(store.begin('s', 'f')).toEqual(answer('p'));
    clock.time += 1;
    expect(store.begin('s', 'f')).toBeUndefined();
  });
});

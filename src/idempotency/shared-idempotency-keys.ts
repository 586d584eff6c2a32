import type { IdempotentAnswer } from './idempotency-store.js';

/**
 * Keys that hold across the nodes of a cluster: the port cluster mode fills
 * (Redis) for `POST /session`, whose key has no session to live with — so a
 * create sent with one key to two nodes makes one session. Without it the
 * daemon's own {@link IdempotencyStore} decides. The same answers as the
 * store's: the first answer, `422 idempotency_key_reused`,
 * `409 idempotency_key_in_flight`; `503 cluster_unavailable` when it cannot be asked.
 */
export abstract class SharedIdempotencyKeys {
  /** Starts a request under `key`: the first answer when it is a repeat, `undefined` when the caller is to process it. */
  abstract begin(key: string, fingerprint: string): Promise<IdempotentAnswer | undefined>;
  /**
   * Records the first answer of a key begun here, for `ttlMs`; resolves with
   * the answer to give (another, already recorded, when another node answered
   * the key first). Rejects when it cannot be recorded: the answer is not given.
   */
  abstract complete(key: string, fingerprint: string, answer: IdempotentAnswer, ttlMs: number): Promise<IdempotentAnswer>;
  /** Frees a key whose first request failed. */
  abstract abandon(key: string, fingerprint: string): Promise<void>;
}

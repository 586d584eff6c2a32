import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RateLimitSettings } from './rate-limit.settings.js';
import type { RateLimitTier } from './rate-limit-tier.js';

/** What one request's draw on its budget came to. */
export type RateLimitVerdict = { allowed: true } | { allowed: false; limit: number; retryAfterMs: number };

const ALLOWED: RateLimitVerdict = { allowed: true };

/** Cluster mode's shared store: the cluster's Redis client (ioredis) and its key prefix. */
export interface SharedRateLimitStore {
  redis: unknown;
  keyPrefix: string;
}

/**
 * The three budgets, per key and window: `rate-limiter-flexible`'s fixed
 * windows, in memory, or in Redis for a cluster (every node draws on one
 * budget). While Redis cannot answer, each node counts in its own memory
 * (the library's insurance limiter): the limits hold per node, never lapse.
 */
export class RateLimits {
  private readonly limiters: Record<RateLimitTier, RateLimiterAbstract>;
  private readonly points: Record<RateLimitTier, number>;

  constructor(settings: RateLimitSettings, store?: SharedRateLimitStore) {
    this.points = { prompt: settings.rateLimitPrompt, mutation: settings.rateLimitMutation, read: settings.rateLimitRead };
    const duration = settings.rateLimitWindowMs / 1000;
    const limiter = (tier: RateLimitTier): RateLimiterAbstract => {
      const points = this.points[tier];
      const memory = new RateLimiterMemory({ points, duration, keyPrefix: tier });
      if (!store) return memory;
      return new RateLimiterRedis({
        storeClient: store.redis,
        points,
        duration,
        keyPrefix: `${store.keyPrefix}rate:${tier}`,
        // Fail fast to the node's own count while the connection is down, rather than queue.
        rejectIfRedisNotReady: true,
        insuranceLimiter: memory,
      });
    };
    this.limiters = { prompt: limiter('prompt'), mutation: limiter('mutation'), read: limiter('read') };
  }

  /** Draws one request on `key`'s budget of `tier`. */
  async consume(tier: RateLimitTier, key: string): Promise<RateLimitVerdict> {
    try {
      await this.limiters[tier].consume(key);
      return ALLOWED;
    } catch (refused) {
      if (!(refused instanceof RateLimiterRes)) throw refused;
      return { allowed: false, limit: this.points[tier], retryAfterMs: Math.max(1, refused.msBeforeNext) };
    }
  }
}

import { DATA_GENERATION_LUA } from './data-generation.js';
import type { ClaimResult } from './lease.js';
import { replyFlag, replyNumber, replyTuple, type GenerationKeys, type RedisScript } from './redis-script.js';

/** What a claim sends: the keys it reads and writes, this node, the lease's time and the fence floor. */
export interface ClaimInput {
  lease: string;
  fenceCounter: string;
  /** The heartbeat of the node named as the previous claimer (this node's own when none is named). */
  previousHeartbeat: string;
  ownHeartbeat: string;
  data: GenerationKeys;
  node: string;
  url: string;
  ttlMs: number;
  /** The highest fence recorded outside Redis: a won fence is above it (docs/cluster.md#inv-lease-1). */
  floor: number;
  /** Whether to look at the previous claimer's heartbeat. */
  lookAtPrevious: boolean;
  /** The data generation this node last saw. */
  seen: number;
}

/** A claim's reply, named: the outcome, and the data generation now. */
export interface ClaimReply {
  result: ClaimResult;
  generation: number;
}

/** Decodes the claim script's reply, `{won, node, url, fence, reset, previousAlive, selfAlive, emptied, generation}`. */
export function decodeClaimReply(reply: unknown): ClaimReply {
  const [won, node, url, fence, reset, previousAlive, selfAlive, emptied, generation] = replyTuple('claim', reply, 9);
  const decoded = replyNumber('claim', fence);
  return {
    generation: replyNumber('claim', generation),
    result: replyFlag('claim', won)
      ? {
          won: true,
          fence: decoded,
          reset: replyFlag('claim', reset),
          emptied: replyFlag('claim', emptied),
          previousAlive: replyFlag('claim', previousAlive),
          selfAlive: replyFlag('claim', selfAlive),
        }
      : { won: false, owner: { node: String(node ?? ''), url: String(url ?? ''), fence: decoded } },
  };
}

/**
 * Wins when the lease is absent or already this node's, in one step, so two nodes never both win; the won fence is
 * above the floor even when Redis lost its counter (a reset). Looks at both heartbeats in the same step.
 */
export const CLAIM_SCRIPT: RedisScript<ClaimInput, ClaimReply> = {
  command: 'turnsClaim',
  numberOfKeys: 6,
  lua: `${DATA_GENERATION_LUA}
local lost, generation = emptied(KEYS[5], KEYS[6], ARGV[6], ARGV[3])
local node = redis.call('HGET', KEYS[1], 'node')
if node and node ~= ARGV[1] then
  return {0, node, redis.call('HGET', KEYS[1], 'url'), redis.call('HGET', KEYS[1], 'fence'), 0, 0, 0, lost, generation}
end
local fence = redis.call('INCR', KEYS[2])
local reset = 0
if fence <= tonumber(ARGV[4]) then
  fence = tonumber(ARGV[4]) + 1
  reset = 1
  redis.call('SET', KEYS[2], fence)
end
redis.call('HSET', KEYS[1], 'node', ARGV[1], 'url', ARGV[2], 'fence', fence)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
local alive = 0
if ARGV[5] == '1' then alive = redis.call('EXISTS', KEYS[3]) end
return {1, ARGV[1], ARGV[2], tostring(fence), reset, alive, redis.call('EXISTS', KEYS[4]), lost, generation}
`,
  args: (input) => [
    input.lease,
    input.fenceCounter,
    input.previousHeartbeat,
    input.ownHeartbeat,
    input.data.generation,
    input.data.lost,
    input.node,
    input.url,
    input.ttlMs,
    input.floor,
    input.lookAtPrevious ? '1' : '0',
    input.seen,
  ],
  decode: decodeClaimReply,
};

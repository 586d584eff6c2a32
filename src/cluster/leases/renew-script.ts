import type { RenewOutcome } from './lease.js';
import { replyNumber, type RedisScript } from './redis-script.js';

/** One lease a renewal sends: its key, its fence, and whether it may only be extended (docs/cluster.md#inv-lease-4). */
export interface RenewedLease {
  key: string;
  fence: number;
  extendOnly?: boolean;
}

/** What a renewal sends: every lease this node holds, in one call. */
export interface RenewInput {
  fenceCounter: string;
  leases: readonly RenewedLease[];
  node: string;
  url: string;
  ttlMs: number;
}

/** The script's code per lease: 0 lost, 1 extended, 2 re-created. */
const OUTCOMES: readonly RenewOutcome[] = ['lost', 'extended', 'recreated'];

/** Decodes the renew script's reply: one outcome per lease, in the order sent (an unknown code counts as lost). */
export function decodeRenewReply(reply: unknown): RenewOutcome[] {
  if (!Array.isArray(reply)) throw new Error('unexpected reply from the renew script');
  return reply.map((code) => OUTCOMES[replyNumber('renew', code)] ?? 'lost');
}

/**
 * Extends each lease still carrying this node and its fence; re-creates one that is gone, keeping the counter at least
 * that high; reports one another claim took. A fence written `x<fence>` is only extended, never re-created.
 */
export const RENEW_SCRIPT: RedisScript<RenewInput, RenewOutcome[]> = {
  command: 'turnsRenew',
  lua: `
local out = {}
for i = 2, #KEYS do
  local fence = ARGV[i + 2]
  local extendOnly = string.sub(fence, 1, 1) == 'x'
  if extendOnly then fence = string.sub(fence, 2) end
  local current = redis.call('HMGET', KEYS[i], 'node', 'fence')
  if current[1] == ARGV[1] and current[2] == fence then
    redis.call('PEXPIRE', KEYS[i], ARGV[3])
    out[i - 1] = 1
  elseif not current[2] and not extendOnly then
    redis.call('HSET', KEYS[i], 'node', ARGV[1], 'url', ARGV[2], 'fence', fence)
    redis.call('PEXPIRE', KEYS[i], ARGV[3])
    if tonumber(redis.call('GET', KEYS[1]) or '0') < tonumber(fence) then redis.call('SET', KEYS[1], fence) end
    out[i - 1] = 2
  else
    out[i - 1] = 0
  end
end
return out
`,
  args: (input) => [
    1 + input.leases.length,
    input.fenceCounter,
    ...input.leases.map((lease) => lease.key),
    input.node,
    input.url,
    input.ttlMs,
    ...input.leases.map((lease) => `${lease.extendOnly ? 'x' : ''}${lease.fence}`),
  ],
  decode: decodeRenewReply,
};

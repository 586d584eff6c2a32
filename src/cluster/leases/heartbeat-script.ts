import { DATA_GENERATION_LUA } from './data-generation.js';
import { replyNumber, type GenerationKeys, type RedisScript } from './redis-script.js';

/** What a heartbeat sends: the node's record, and whether it only refreshes one that is there. */
export interface HeartbeatInput {
  heartbeat: string;
  data: GenerationKeys;
  /** The node's record, as JSON. */
  record: string;
  ttlMs: number;
  /** Only update the record of a heartbeat that is there, keeping its expiry (docs/cluster.md#inv-lease-3). */
  refreshOnly: boolean;
  /** The data generation this node last saw. */
  seen: number;
}

/** Decodes the heartbeat script's reply: the data generation now. */
export function decodeHeartbeatReply(reply: unknown): { generation: number } {
  return { generation: replyNumber('heartbeat', reply) };
}

/** Writes the node's heartbeat with a lease's expiry, or refreshes the record of one that is there. */
export const HEARTBEAT_SCRIPT: RedisScript<HeartbeatInput, { generation: number }> = {
  command: 'turnsHeartbeat',
  numberOfKeys: 3,
  lua: `${DATA_GENERATION_LUA}
local _, generation = emptied(KEYS[2], KEYS[3], ARGV[4], ARGV[2])
if ARGV[3] == '1' then redis.call('SET', KEYS[1], ARGV[1], 'XX', 'KEEPTTL')
else redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) end
return generation
`,
  args: (input) => [
    input.heartbeat,
    input.data.generation,
    input.data.lost,
    input.record,
    input.ttlMs,
    input.refreshOnly ? '1' : '0',
    input.seen,
  ],
  decode: decodeHeartbeatReply,
};

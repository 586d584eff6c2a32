import { DATA_GENERATION_LUA } from './data-generation.js';
import { replyFlag, replyNumber, replyTuple, type GenerationKeys, type RedisScript } from './redis-script.js';

/** What an outbox claim sends: the claim's key, this node, how long the claim lasts and a lease's time. */
export interface OutboxClaimInput {
  claim: string;
  data: GenerationKeys;
  node: string;
  ttlMs: number;
  leaseMs: number;
  /** The data generation this node last saw. */
  seen: number;
}

/** An outbox claim's reply, named. */
export interface OutboxClaimReply {
  claimed: boolean;
  generation: number;
}

/** Decodes the outbox claim script's reply, `{claimed, generation}`. */
export function decodeOutboxClaimReply(reply: unknown): OutboxClaimReply {
  const [claimed, generation] = replyTuple('outbox claim', reply, 2);
  return { claimed: replyFlag('outbox claim', claimed), generation: replyNumber('outbox claim', generation) };
}

/** Takes a dead node's outbox for one live node; refused while Redis lost data less than a lease ago (docs/cluster.md#inv-lease-6). */
export const OUTBOX_CLAIM_SCRIPT: RedisScript<OutboxClaimInput, OutboxClaimReply> = {
  command: 'turnsClaimOutbox',
  numberOfKeys: 3,
  lua: `${DATA_GENERATION_LUA}
local lost, generation = emptied(KEYS[2], KEYS[3], ARGV[4], ARGV[3])
if lost == 0 and redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then return {1, generation} end
return {0, generation}
`,
  args: (input) => [input.claim, input.data.generation, input.data.lost, input.node, input.ttlMs, input.leaseMs, input.seen],
  decode: decodeOutboxClaimReply,
};

import { replyFlag, type RedisScript } from './redis-script.js';

/** What a release sends: the lease, and the fence it must still carry. */
export interface ReleaseInput {
  lease: string;
  fence: number;
}

/** Decodes the release script's reply: whether the lease was deleted. */
export function decodeReleaseReply(reply: unknown): { deleted: boolean } {
  return { deleted: replyFlag('release', reply) };
}

/** Deletes the lease only while it carries this fence. */
export const RELEASE_SCRIPT: RedisScript<ReleaseInput, { deleted: boolean }> = {
  command: 'turnsRelease',
  numberOfKeys: 1,
  lua: `
if redis.call('HGET', KEYS[1], 'fence') == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`,
  args: (input) => [input.lease, input.fence],
  decode: decodeReleaseReply,
};

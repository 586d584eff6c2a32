/**
 * One of the directory's Lua scripts: the ioredis command it is defined as, how a call's named input becomes its KEYS
 * and ARGV (`numberOfKeys` undefined: the arguments start with the key count), and how its reply becomes a named result.
 */
export interface RedisScript<Input, Reply> {
  readonly command: string;
  readonly lua: string;
  readonly numberOfKeys?: number;
  args(input: Input): Array<string | number>;
  decode(reply: unknown): Reply;
}

/** The keys every script that counts the data generation is given (docs/cluster.md#inv-lease-6). */
export interface GenerationKeys {
  /** The data generation: a counter without expiry. */
  generation: string;
  /** The marker a loss of data starts, for one lease. */
  lost: string;
}

/** The reply of a script, checked to be an array of `length` items. */
export function replyTuple(script: string, reply: unknown, length: number): unknown[] {
  if (!Array.isArray(reply) || reply.length !== length) throw new Error(`unexpected reply from the ${script} script`);
  return reply;
}

/** A reply item that is a number (an integer reply, or a number sent as a string). */
export function replyNumber(script: string, value: unknown): number {
  const number = typeof value === 'string' ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isFinite(number)) throw new Error(`unexpected reply from the ${script} script`);
  return number;
}

/** A reply item that is a Lua boolean as the scripts send it: 1 or 0. */
export function replyFlag(script: string, value: unknown): boolean {
  return replyNumber(script, value) === 1;
}

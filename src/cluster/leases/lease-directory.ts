import type { Redis } from 'ioredis';
import { CLAIM_SCRIPT } from './claim-script.js';
import { DirectoryKeys } from './directory-keys.js';
import { HEARTBEAT_SCRIPT } from './heartbeat-script.js';
import { MonotonicClock, PerformanceClock } from './monotonic-clock.js';
import { OUTBOX_CLAIM_SCRIPT } from './outbox-claim-script.js';
import type { RedisScript } from './redis-script.js';
import { RELEASE_SCRIPT } from './release-script.js';
import { RENEW_SCRIPT } from './renew-script.js';

const SCRIPTS: ReadonlyArray<RedisScript<never, unknown>> = [
  CLAIM_SCRIPT,
  RENEW_SCRIPT,
  RELEASE_SCRIPT,
  HEARTBEAT_SCRIPT,
  OUTBOX_CLAIM_SCRIPT,
];

type ScriptCommand = (...args: Array<string | number>) => Promise<unknown>;

/**
 * The cluster's shared directory in Redis, as one connection: its scripts, key names and data generation, and when it
 * connected. The {@link LeaseStore}, the {@link NodeRegistry} and the outbox claims share it. Every call is one round
 * trip; a Redis that is down makes each call reject at once (no offline queue).
 *
 * @publicApi
 */
export class LeaseDirectory {
  readonly keys: DirectoryKeys;
  private connections = 0;
  private stampedAt = -Infinity;
  /** The data generation this node last got (replies on one connection come in order): docs/cluster.md#inv-lease-6. */
  private generation = 0;

  constructor(
    readonly redis: Redis,
    readonly leaseMs: number,
    prefix = 'turns:',
    private readonly clock: MonotonicClock = new PerformanceClock(),
  ) {
    this.keys = new DirectoryKeys(prefix);
    for (const script of SCRIPTS) redis.defineCommand(script.command, { numberOfKeys: script.numberOfKeys, lua: script.lua });
    redis.on('ready', () => {
      this.connections += 1;
      this.stampedAt = this.clock.now();
    });
  }

  /** When the current connection was made (monotonic ms): within a lease of it, a missing heartbeat proves nothing. */
  get connectedAt(): number {
    return this.stampedAt;
  }

  /** Counts the connections made so far: a lease confirmed over an earlier one is asked about again. */
  get epoch(): number {
    return this.connections;
  }

  /** True while connected; calls made otherwise reject at once. */
  get connected(): boolean {
    return this.redis.status === 'ready';
  }

  /** Runs one of the directory's scripts with a named input; answers its named reply. */
  async run<Input, Reply>(script: RedisScript<Input, Reply>, input: Input): Promise<Reply> {
    const command = (this.redis as unknown as Record<string, ScriptCommand>)[script.command];
    return script.decode(await command.apply(this.redis, script.args(input)));
  }

  /** Runs a script that counts the data generation: passes the one last seen, keeps the one it answers. */
  async runCounted<Input extends { seen: number }, Reply extends { generation: number }>(
    script: RedisScript<Input, Reply>,
    input: Omit<Input, 'seen'>,
  ): Promise<Reply> {
    const reply = await this.run(script, { ...input, seen: this.generation } as Input);
    this.generation = reply.generation;
    return reply;
  }

  /** Resolves once connected, or after `timeoutMs` either way. */
  async ready(timeoutMs: number): Promise<void> {
    if (this.connected) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.redis.off('ready', done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      this.redis.once('ready', done);
    });
  }

  async close(): Promise<void> {
    if (this.redis.status === 'end') return;
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

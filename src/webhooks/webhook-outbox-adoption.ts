import { Injectable, Logger, Optional, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { readdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { OutboxClaims } from './outbox-claims.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';

const OUTBOX = /^outbox-([A-Za-z0-9._:-]{1,64})$/;

/**
 * Webhook failover between nodes: every node keeps its outbox at
 * `<dataDir>/webhooks/outbox-<nodeId>` on the shared data dir, and once a
 * node is dead (the {@link OutboxClaims} say so, cluster mode) one live node
 * — the one that wins the claim — moves its pending deliveries into its own
 * outbox and sends them. A delivery the dead node had in flight is sent once
 * more (at least once). Without claims (a single daemon) it does nothing.
 */
@Injectable()
export class WebhookOutboxAdoption implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('WebhookOutboxAdoption');
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(
    private readonly dispatcher: WebhookDispatcher,
    @Optional() private readonly claims?: OutboxClaims,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.claims) return;
    this.timer = setInterval(() => {
      this.running ??= this.sweep()
        .then(() => undefined)
        .finally(() => (this.running = undefined));
    }, this.claims.intervalMs);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** One pass: adopts the outbox of every node that has one and is dead. */
  async sweep(): Promise<number> {
    if (!this.claims) return 0;
    let adopted = 0;
    // Everything inside: the timer's chain has no catch, so a rejected sweep would be unhandled.
    try {
      if (!this.claims.active()) return 0;
      const root = dirname(this.dispatcher.outboxDir);
      const own = basename(this.dispatcher.outboxDir);
      const names = await readdir(root).catch(() => [] as string[]);
      const others = names.filter((name) => name !== own && OUTBOX.test(name)).map((name) => OUTBOX.exec(name)![1]!);
      if (others.length === 0) return 0;
      const live = await this.claims.liveNodeIds();
      for (const nodeId of others) {
        // One at a time: the claim holds for a lease, so it is taken just before its outbox is moved.
        if (live.has(nodeId) || !(await this.claims.claim(nodeId))) continue;
        adopted += await this.dispatcher.adopt(join(root, `outbox-${nodeId}`));
      }
    } catch (error) {
      // The directory unreachable: try again next time.
      this.logger.warn(`webhook outboxes not swept: ${(error as Error)?.name ?? 'error'}`);
    }
    if (adopted > 0) this.logger.log(`adopted ${adopted} pending webhook deliveries of a dead node`);
    return adopted;
  }
}

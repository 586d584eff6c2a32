import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { readdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { WebhookDispatcher } from '../webhooks/webhook-dispatcher.js';
import { ClusterNode } from './cluster-node.js';
import { CLUSTER_SETTINGS, type ClusterSettings } from './cluster-options.js';
import { LeaseDirectory } from './lease-directory.js';

const OUTBOX = /^outbox-([A-Za-z0-9._:-]{1,64})$/;

/**
 * Cluster mode's webhook failover: every node keeps its outbox at
 * `<dataDir>/webhooks/outbox-<nodeId>` on the shared data dir, and once a
 * node's heartbeat has expired (it is dead, not slow for a moment) one live
 * node — the one that wins a claim in Redis — moves its pending deliveries
 * into its own outbox and sends them. A delivery the dead node had in flight
 * is sent once more (at least once).
 */
@Injectable()
export class WebhookOutboxAdoption implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('WebhookOutboxAdoption');
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(
    private readonly directory: LeaseDirectory,
    private readonly node: ClusterNode,
    @Inject(CLUSTER_SETTINGS) private readonly settings: ClusterSettings,
    private readonly moduleRef: ModuleRef,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      this.running ??= this.sweep()
        .then(() => undefined)
        .finally(() => (this.running = undefined));
    }, this.settings.leaseMs);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** One pass: adopts the outbox of every node that has one and no heartbeat. */
  async sweep(): Promise<number> {
    const dispatcher = this.dispatcher();
    if (!dispatcher || !this.node.listening) return 0;
    let adopted = 0;
    try {
      const root = dirname(dispatcher.outboxDir);
      const own = basename(dispatcher.outboxDir);
      const names = await readdir(root).catch(() => [] as string[]);
      const dead = names.filter((name) => name !== own && OUTBOX.test(name));
      if (dead.length === 0) return 0;
      const live = new Set((await this.directory.nodes()).map((n) => n.nodeId));
      for (const name of dead) {
        const nodeId = OUTBOX.exec(name)![1]!;
        if (live.has(nodeId) || !(await this.directory.claimOutbox(nodeId, this.node.id, this.settings.leaseMs))) continue;
        adopted += await dispatcher.adopt(join(root, name));
      }
    } catch (error) {
      // Redis unreachable: try again next time.
      this.logger.warn(`webhook outboxes not swept: ${(error as Error)?.name ?? 'error'}`);
    }
    if (adopted > 0) this.logger.log(`adopted ${adopted} pending webhook deliveries of a dead node`);
    return adopted;
  }

  private dispatcher(): WebhookDispatcher | undefined {
    try {
      return this.moduleRef.get(WebhookDispatcher, { strict: false });
    } catch {
      return undefined;
    }
  }
}

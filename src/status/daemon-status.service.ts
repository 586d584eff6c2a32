import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { PromptBridge } from '../bridge/prompt-bridge.js';
import { SessionEventBus } from '../events/session-event-bus.js';
import { ClusterView } from '../sessions/cluster-view.js';
import { SessionRegistry } from '../sessions/session-registry.js';
import { TurnWaitService } from '../turns/wait/turn-wait.service.js';
import { WebhookDispatcher } from '../webhooks/webhook-dispatcher.js';
import type { DaemonStatusDto } from './daemon-status.dto.js';
import { PACKAGE_VERSION } from '../common/package-version.js';
import { STATUS_OPTIONS, type StatusOptions } from './status.settings.js';
import { dataDirWritable, firstFailing, readinessLine, redisUp, type ReadinessCheck } from './readiness-checks.js';

/**
 * What the daemon is doing right now (read from the live services, nothing
 * stored) and whether it can serve: the data dir takes writes and, in
 * cluster mode, Redis answers.
 */
@Injectable()
export class DaemonStatusService {
  private readonly startedAt = performance.now();
  private readonly checks: readonly ReadinessCheck[];
  private readonly logger = new Logger('Readiness');
  /** The check that failed at the last evaluation: the log speaks once per change, not per probe. */
  private failing?: string;

  constructor(
    private readonly registry: SessionRegistry,
    private readonly bridge: PromptBridge,
    private readonly waits: TurnWaitService,
    private readonly events: SessionEventBus,
    private readonly webhooks: WebhookDispatcher,
    @Inject(STATUS_OPTIONS) options: StatusOptions,
    // Cluster mode only (docs/cluster.md#ownership-ports): a single daemon has no cluster block and no redis check to fail.
    @Optional() @Inject(ClusterView) private readonly cluster?: ClusterView,
  ) {
    this.checks = [dataDirWritable(options.dataDir), redisUp(() => cluster?.clusterState())];
  }

  /** The name of the check that keeps the daemon from serving, if any. */
  async unready(): Promise<string | undefined> {
    const failing = await firstFailing(this.checks);
    const line = readinessLine(this.failing, failing);
    this.failing = failing;
    if (line) this.logger[line.level](line.message);
    return failing;
  }

  async status(): Promise<DaemonStatusDto> {
    const cluster = this.cluster?.clusterState();
    return {
      v: 1,
      status: (await this.unready()) ? 'degraded' : 'ok',
      version: PACKAGE_VERSION,
      uptimeMs: Math.round(performance.now() - this.startedAt),
      sessions: { live: this.registry.size },
      prompts: this.bridge.promptCounts(),
      waiters: this.waits.waiting,
      sseStreams: this.events.openStreamCount,
      webhooks: { pending: await this.webhooks.outboxDepth(), failing: this.webhooks.failing },
      ...(cluster && { cluster }),
    };
  }
}

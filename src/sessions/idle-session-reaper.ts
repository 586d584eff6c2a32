import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { PromptBridge } from '../bridge/prompt-bridge.js';
import { Clock } from '../common/clock.js';
import { SessionEventBus } from '../events/session-event-bus.js';
import { TURNS_CHANNELS } from '../telemetry/turns-channels.js';
import { idleSince, idleTooLong, reapEveryMs } from './idle-session.js';
import { SessionOwnership } from './session-ownership.js';
import { SessionRegistry } from './session-registry.js';
import { SessionsService } from './sessions.service.js';
import { SESSION_OPTIONS, type SessionOptions } from './sessions.settings.js';
import type { Session } from './session.js';

/**
 * Closes the live sessions idle longer than `sessionIdleTimeoutMs`, as `qwen serve` does
 * (docs/operating.md#idle-sessions; docs/decisions.md#the-idle-session-reaper).
 *
 * @publicApi
 */
@Injectable()
export class IdleSessionReaper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('IdleSessionReaper');
  private timer?: NodeJS.Timeout;
  private running?: Promise<string[]>;

  constructor(
    private readonly sessions: SessionsService,
    private readonly registry: SessionRegistry,
    private readonly bridge: PromptBridge,
    private readonly events: SessionEventBus,
    private readonly ownership: SessionOwnership,
    @Inject(SESSION_OPTIONS) private readonly settings: SessionOptions,
    private readonly clock: Clock,
  ) {}

  private get timeoutMs(): number {
    return this.settings.sessionIdleTimeoutMs;
  }

  onApplicationBootstrap(): void {
    if (this.timeoutMs === 0) return;
    this.timer = setInterval(() => void this.reapIdle(), reapEveryMs(this.timeoutMs));
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** One look (one at a time): closes the sessions idle too long; resolves with their ids. Never rejects. */
  reapIdle(): Promise<string[]> {
    this.running ??= this.pass().finally(() => (this.running = undefined));
    return this.running;
  }

  private async pass(): Promise<string[]> {
    const reaped: string[] = [];
    for (const session of this.registry.all().filter((live) => this.idleFor(live) !== undefined)) {
      try {
        // Only the owner reaps: a session this node lost is closed here by the loss, and is the new owner's.
        if ((await this.ownership.confirm(session.id)) !== true) continue;
      } catch {
        continue;
      }
      // Looked at again after that wait, then closed in the same turn: a stream, heartbeat or prompt may have come.
      const idleMs = this.registry.get(session.id) === session ? this.idleFor(session) : undefined;
      if (idleMs === undefined) continue;
      const closing = this.sessions.reap(session);
      this.logger.log(`session ${session.id} closed: idle for ${idleMs} ms (session idle timeout ${this.timeoutMs} ms)`);
      TURNS_CHANNELS.sessionReaped.publish({ sessionId: session.id, idleMs });
      reaped.push(session.id);
      await closing;
    }
    return reaped;
  }

  /** How long the session has been idle, when that is too long; else undefined. */
  private idleFor(session: Session): number | undefined {
    const now = this.clock.now();
    const streams = this.events.streamsOf(session.id);
    const since = idleSince({
      liveSince: session.createdAt,
      newestEventAt: this.events.newestEventAt(session.id),
      lastHeartbeatAt: this.registry.lastHeartbeatAt(session.id),
      streamEndedAt: streams.endedAt,
      openStreams: streams.open,
      pendingPrompts: this.bridge.pendingPrompts(session.id).length,
      pendingApprovals: this.bridge.pendingInteractions(session.id).length,
    });
    return idleTooLong(since, now, this.timeoutMs) ? now - since! : undefined;
  }
}

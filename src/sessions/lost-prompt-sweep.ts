import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { ApiException } from '../errors/api-exception.js';
import { danglingLedgers } from '../ledger/dangling-ledgers.js';
import { RuntimeSettings } from '../runtime/runtime-settings.js';
import { chatsDir } from '../transcript/transcript-paths.js';
import { SessionOwnership } from './session-ownership.js';
import { SessionsService } from './sessions.service.js';

/**
 * Settles the prompts that dead processes left `in_flight` in sessions nobody
 * loads again (SPEC §18): each ledger of the data dir whose tail has one gets
 * the reconciliation of a `load` — `daemon_lost` recorded and announced by
 * webhook — through {@link SessionsService.settleLost}, which claims the
 * session first. A single daemon owns every session, so one pass at start
 * settles them all; a cluster node passes every
 * {@link SessionOwnership.unownedSweepMs}, and a session another node holds is
 * skipped (its claim fails).
 */
@Injectable()
export class LostPromptSweep implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('LostPromptSweep');
  private timer?: NodeJS.Timeout;
  private running?: Promise<number>;
  /** Ledgers found with nothing in flight, by size and mtime: a pass reads again only those that changed. */
  private readonly settled = new Map<string, string>();
  private stopped = false;

  constructor(
    private readonly sessions: SessionsService,
    private readonly settings: RuntimeSettings,
    private readonly ownership: SessionOwnership,
  ) {}

  onApplicationBootstrap(): void {
    const every = this.ownership.unownedSweepMs;
    if (every === undefined) {
      void this.sweep();
      return;
    }
    this.timer = setInterval(() => void this.sweep(), every);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    clearInterval(this.timer);
  }

  /** One pass (one at a time); resolves with how many sessions it settled. Never rejects. */
  sweep(): Promise<number> {
    this.running ??= this.pass().finally(() => (this.running = undefined));
    return this.running;
  }

  private async pass(): Promise<number> {
    let settled = 0;
    // Right after Redis restarted empty, live owners have not re-created their leases yet.
    if (!this.ownership.mayClaimUnowned()) return settled;
    for (const workspace of this.settings.workspaces) {
      for await (const sessionId of danglingLedgers(chatsDir(this.settings.dataDir, workspace.cwd), this.settled)) {
        if (this.stopped) return settled;
        try {
          if (await this.sessions.settleLost(sessionId, workspace)) settled += 1;
        } catch (error) {
          // Another node holds it: its owner settles what is its own.
          if (error instanceof ApiException && error.code === 'session_on_other_node') continue;
          this.logger.warn(`lost prompts of session ${sessionId} not settled: ${(error as Error)?.name ?? 'error'}`);
        }
      }
    }
    if (settled > 0) this.logger.log(`settled the lost prompts of ${settled} session(s) no node had loaded`);
    return settled;
  }
}

import { Inject, Injectable, Logger, Optional, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { ApiException } from '../errors/api-exception.js';
import { danglingLedgers } from '../ledger/dangling-ledgers.js';
import { PromptLedger } from '../ledger/prompt-ledger.js';
import { ChatRecordingService } from '../transcript/chat-recording.service.js';
import { chatsDir } from '../transcript/transcript-paths.js';
import { SessionOwnership } from './session-ownership.js';
import { SessionsService } from './sessions.service.js';
import { SESSION_OPTIONS, type SessionOptions } from './sessions.settings.js';
import { LocalUnownedSessions, UnownedSessions } from './unowned-sessions.js';
import type { Workspace } from './workspace.js';

/** A single daemon's next pass after one that settled something: a ledger write that failed is tried again. */
const RETRY_MS = 60_000;

/**
 * Settles the prompts dead processes left `in_flight` in sessions nobody loads again, as a `load` would, with the
 * session claimed and held off, never started (docs/decisions.md#the-lost-prompt-sweep).
 */
@Injectable()
export class LostPromptSweep implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('LostPromptSweep');
  private timer?: NodeJS.Timeout;
  private running?: Promise<number>;
  /** Ledgers found with nothing in flight, by size and mtime: a pass reads again only those that changed. */
  private readonly settled = new Map<string, string>();
  /** The sessions the last pass tried to settle: one found in flight again had a write fail. */
  private tried = new Set<string>();
  private stopped = false;
  private readonly unowned: UnownedSessions;

  constructor(
    private readonly sessions: SessionsService,
    @Inject(SESSION_OPTIONS) private readonly settings: SessionOptions,
    private readonly ownership: SessionOwnership,
    private readonly recorder: ChatRecordingService,
    private readonly ledger: PromptLedger,
    // A cluster's view when one is imported (docs/cluster.md#ownership-ports); a single daemon owns every session.
    @Optional() @Inject(UnownedSessions) unowned?: UnownedSessions,
  ) {
    this.unowned = unowned ?? new LocalUnownedSessions();
  }

  onApplicationBootstrap(): void {
    const every = this.unowned.unownedSweepMs;
    if (every === undefined) {
      void this.sweep().then(() => this.retrySoon());
      return;
    }
    this.timer = setInterval(() => void this.sweep(), every);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    clearInterval(this.timer);
    clearTimeout(this.timer);
  }

  /** A single daemon passes again a minute after a pass that tried to settle something, until one finds nothing. */
  private retrySoon(): void {
    if (this.tried.size === 0 || this.stopped) return;
    this.timer = setTimeout(() => void this.sweep().then(() => this.retrySoon()), RETRY_MS);
    this.timer.unref();
  }

  /** One pass (one at a time); resolves with how many sessions it settled. Never rejects. */
  sweep(): Promise<number> {
    this.running ??= this.pass().finally(() => (this.running = undefined));
    return this.running;
  }

  private async pass(): Promise<number> {
    let settled = 0;
    const tried = new Set<string>();
    // Right after Redis restarted empty, live owners have not re-created their leases yet.
    if (!this.unowned.mayClaimUnowned()) return settled;
    for (const workspace of this.settings.workspaces) {
      for await (const sessionId of danglingLedgers(chatsDir(this.settings.dataDir, workspace.cwd), this.settled)) {
        if (this.stopped) return settled;
        if (this.tried.has(sessionId)) this.logger.warn(`session ${sessionId} still has lost prompts in flight: settling again`);
        try {
          if (!(await this.settle(sessionId, workspace))) continue;
          settled += 1;
          tried.add(sessionId);
        } catch (error) {
          // Another node holds it: its owner settles what is its own.
          if (error instanceof ApiException && error.code === 'session_on_other_node') continue;
          this.logger.warn(`lost prompts of session ${sessionId} not settled: ${(error as Error)?.name ?? 'error'}`);
          tried.add(sessionId);
        }
      }
    }
    this.tried = tried;
    if (settled > 0) this.logger.log(`settled the lost prompts of ${settled} session(s) no node had loaded`);
    return settled;
  }

  /**
   * Settles one session no node holds, as a `load` would, without starting it;
   * false when it is held or live (here or, by the directory, elsewhere).
   */
  private async settle(sessionId: string, workspace: Workspace): Promise<boolean> {
    if (!(await this.unowned.seenUnowned(sessionId))) return false;
    // Again before each claim: a pass can outlast the directory connection it began on.
    if (!this.unowned.mayClaimUnowned()) return false;
    return this.sessions.holdWhile(sessionId, () => this.reconcileUnowned(sessionId, workspace));
  }

  private async reconcileUnowned(sessionId: string, workspace: Workspace): Promise<void> {
    await this.ownership.claim(sessionId);
    try {
      await this.recorder.attach(sessionId, workspace.cwd);
    } catch (error) {
      await this.ownership.release(sessionId);
      throw error;
    }
    try {
      await this.ledger.reconcileAndReadTerminals(sessionId);
    } finally {
      await this.ledger.detach(sessionId);
      await this.recorder.detach(sessionId);
      await this.ownership.release(sessionId);
    }
  }
}

import type { EnginePermissionOutcome } from '../engines/agent-engine.js';
import type { HookedTurn } from '../bridge/turn-hooks.js';
import type { PendingInteraction } from '../turns/turn-status.js';

/** A request held for a client's answer. */
export interface HeldRequest extends HookedTurn {
  readonly requestId: string;
  readonly item: PendingInteraction;
  /** The tool's title, for the log. */
  readonly title: string;
  /** The latch: set once, by the first answer (a client's, the time-out's, or the turn's end). */
  resolved: boolean;
  /** Hands the outcome to the agent and stops listening for the turn's end. */
  finish(outcome: EnginePermissionOutcome): void;
}

/** The requests held now, by id and by session (oldest first). */
export class HeldRequests {
  private readonly byId = new Map<string, HeldRequest>();
  private readonly bySession = new Map<string, HeldRequest[]>();

  get size(): number {
    return this.byId.size;
  }

  get(requestId: string): HeldRequest | undefined {
    return this.byId.get(requestId);
  }

  add(entry: HeldRequest): void {
    this.byId.set(entry.requestId, entry);
    this.bySession.set(entry.sessionId, [...(this.bySession.get(entry.sessionId) ?? []), entry]);
  }

  delete(entry: HeldRequest): void {
    this.byId.delete(entry.requestId);
    const left = this.bySession.get(entry.sessionId)?.filter((other) => other !== entry) ?? [];
    if (left.length > 0) this.bySession.set(entry.sessionId, left);
    else this.bySession.delete(entry.sessionId);
  }

  /** The session's requests, oldest first (an array never changed in place: resolving one while iterating is safe). */
  inSession(sessionId: string): readonly HeldRequest[] {
    return this.bySession.get(sessionId) ?? [];
  }

  all(): HeldRequest[] {
    return [...this.byId.values()];
  }
}

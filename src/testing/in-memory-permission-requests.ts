import type { PendingInteraction, PendingInteractionOption } from '../turns/turn-status.js';
import type { PermissionOutcome } from '../wire/session-event.js';
import { isOffered } from '../permissions/permission-policy.js';
import { isPermissionOutcome } from '../permissions/permission.dto.js';

/**
 * A request for approval raised with `InMemoryBridgeOverlay.askPermission`:
 * its id and the options it offers.
 *
 * @publicApi
 */
export interface InMemoryPermissionRequest {
  /** @default `r1`, `r2`, … */
  requestId?: string;
  /** @default allow once (`allow_once`) and reject (`reject_once`), each its kind as its id */
  options?: PendingInteractionOption[];
}

/** A request held until its answer, or its prompt's end. */
interface HeldRequest {
  sessionId: string;
  promptId: string;
  item: PendingInteraction;
  resolve(outcome: PermissionOutcome): void;
}

const DEFAULT_OPTIONS: PendingInteractionOption[] = [
  { optionId: 'allow_once', label: 'Allow once', kind: 'allow_once' },
  { optionId: 'reject_once', label: 'Reject', kind: 'reject_once' },
];

/**
 * The in-memory bridge's requests for approval (docs/permissions.md): each pending
 * until its first answer or the end of its prompt, which answers `cancelled`.
 */
export class InMemoryPermissionRequests {
  private readonly held = new Map<string, HeldRequest>();
  private nextRequest = 1;

  ask(
    sessionId: string,
    promptId: string,
    createdAt: number,
    action: PendingInteraction['action'],
    request: InMemoryPermissionRequest,
  ): { requestId: string; answered: Promise<PermissionOutcome> } {
    const requestId = request.requestId ?? `r${this.nextRequest++}`;
    if (this.held.has(requestId)) throw new Error(`request ${requestId} is pending already`);
    const options = request.options ?? DEFAULT_OPTIONS;
    const item: PendingInteraction = { requestId, kind: 'permission', createdAt: new Date(createdAt).toISOString(), action, options };
    const answered = new Promise<PermissionOutcome>((resolve) => this.held.set(requestId, { sessionId, promptId, item, resolve }));
    return { requestId, answered };
  }

  /**
   * The first answer of a pending request of the session: its prompt, or undefined when it is not pending.
   * Throws for an outcome the answer routes would refuse (a test in plain JavaScript has no type to stop it).
   */
  answer(sessionId: string, requestId: string, outcome: PermissionOutcome): string | undefined {
    if (!isPermissionOutcome(outcome)) {
      throw new Error(`answerPermission: outcome must be {outcome:"selected", optionId} or {outcome:"cancelled"} (got ${shown(outcome)})`);
    }
    const held = this.held.get(requestId);
    if (held?.sessionId !== sessionId) return undefined;
    if (outcome.outcome === 'selected' && !isOffered(held.item, outcome)) {
      throw new Error(`request ${requestId} did not offer option ${outcome.optionId}`);
    }
    this.held.delete(requestId);
    held.resolve(outcome);
    return held.promptId;
  }

  /** What polls show of the prompt's pending requests, oldest first; undefined when none. */
  pendingOf(sessionId: string, promptId: string): PendingInteraction[] | undefined {
    const pending = [...this.held.values()].filter((held) => held.sessionId === sessionId && held.promptId === promptId);
    return pending.length ? pending.map((held) => held.item) : undefined;
  }

  /** The prompt ended (or, without `promptId`, the session closed): its requests are answered `cancelled`. */
  end(sessionId: string, promptId?: string): void {
    for (const [requestId, held] of this.held) {
      if (held.sessionId !== sessionId || (promptId !== undefined && held.promptId !== promptId)) continue;
      this.held.delete(requestId);
      held.resolve({ outcome: 'cancelled' });
    }
  }
}

/** A value as a test wrote it, for an error message. */
function shown(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

import type { PermissionOutcome } from '../wire/session-event.js';

/** Answered requests remembered, so a late answer is told the outcome (`permission_already_resolved`). */
const REMEMBERED = 256;

/** The outcomes of the latest answered requests, the oldest forgotten first. */
export class RecentAnswers {
  private readonly answers = new Map<string, { sessionId: string; outcome: PermissionOutcome }>();

  add(requestId: string, answer: { sessionId: string; outcome: PermissionOutcome }): void {
    this.answers.set(requestId, answer);
    if (this.answers.size > REMEMBERED) this.answers.delete(this.answers.keys().next().value!);
  }

  get(requestId: string): { sessionId: string; outcome: PermissionOutcome } | undefined {
    return this.answers.get(requestId);
  }
}

import { Injectable } from '@nestjs/common';
import type { Session } from './session.js';

/** Live sessions by id. A session is owned by exactly one workspace runtime. */
@Injectable()
export class SessionRegistry {
  private readonly sessions = new Map<string, Session>();

  get(sessionId: string): Session | undefined {
    return this.sessions.get(sessionId);
  }

  add(session: Session): void {
    this.sessions.set(session.id, session);
  }

  remove(sessionId: string): void {
    this.sessions.delete(sessionId);
  }

  /** A live session of the workspace, for `sessionScope: "single"`. */
  findByWorkspace(workspaceId: string): Session | undefined {
    for (const session of this.sessions.values()) if (session.workspace.id === workspaceId) return session;
    return undefined;
  }

  all(): Session[] {
    return [...this.sessions.values()];
  }
}

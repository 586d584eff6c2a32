import { Logger } from '@nestjs/common';
import { readFile } from 'node:fs/promises';
import type { Principal } from '../http/request-principal.js';
import { mayAccessSession } from '../http/session-owner.js';
import { writeAtomically } from '../common/durable-files.js';
import { companionPath } from '../transcript/transcript-paths.js';
import type { ChatRecordingService } from '../transcript/chat-recording.service.js';
import { apiError } from '../errors/api-errors.js';

/** A record that cannot be read: nobody's to take. */
const REFUSED = Symbol('refused');

/** A create naming another principal's session: refused without saying whose. */
export const idTaken = () => apiError('invalid_session_id', {}, { message: 'This session id cannot be used' });

/** Beside the transcript: `<sessionId>.owner.json`. */
const OWNER_SUFFIX = '.owner.json';

/**
 * The owner of a session, recorded durably beside its transcript
 * (docs/security.md#ownership): written before the session is live, read by a
 * load — after a restart, or on the node a failover moves the session to,
 * which reads the same data dir. A session with no owner has no file.
 */
export class SessionOwnerFiles {
  private readonly logger = new Logger('SessionsService');

  constructor(private readonly recorder: ChatRecordingService) {}

  /**
   * The recorded owner of a persisted session when `principal` may see it,
   * else `undefined`: also when the record cannot be read (fail closed; logged).
   */
  async visibleTo(
    sessionId: string,
    workspace: string,
    principal: Principal | undefined,
  ): Promise<{ owner: string | undefined } | undefined> {
    let owner: string | undefined;
    try {
      owner = await this.read(sessionId, workspace);
    } catch (error) {
      this.logger.warn(`session ${sessionId} not loaded: its owner could not be read (${(error as Error)?.name ?? 'error'})`);
      return undefined;
    }
    return mayAccessSession(owner, principal) ? { owner } : undefined;
  }

  /**
   * The owner of a session a create names by id (`POST /session
   * {sessionId}`), not live here: one persisted already (a transcript or an
   * owner record) keeps its recorded owner, and only a principal that may see
   * it may start it; another is refused `400 invalid_session_id`, so a create
   * never takes a session over. A new id is `principal`'s.
   */
  async ownerForCreate(sessionId: string, workspace: string, principal: Principal | undefined): Promise<string | undefined> {
    const persisted = await this.recorder.exists(workspace, sessionId);
    const recorded = await this.read(sessionId, workspace).catch((): typeof REFUSED => REFUSED);
    if (!persisted && recorded === undefined) return principal?.name;
    if (recorded === REFUSED || !mayAccessSession(recorded, principal)) throw idTaken();
    return recorded;
  }

  /** Records `owner` for the session (nothing for none); a failure is the caller's (the session is not made live). */
  async write(sessionId: string, workspace: string, owner: string | undefined): Promise<void> {
    if (owner === undefined) return;
    await writeAtomically(this.pathOf(sessionId, workspace), `${JSON.stringify({ v: 1, owner })}\n`);
  }

  /**
   * The recorded owner, `undefined` when the session has none (no file). A
   * file that cannot be read or parsed throws: a load must not take an owned
   * session for an unowned one.
   */
  async read(sessionId: string, workspace: string): Promise<string | undefined> {
    let text: string;
    try {
      text = await readFile(this.pathOf(sessionId, workspace), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    const owner = (JSON.parse(text) as { owner?: unknown }).owner;
    if (typeof owner !== 'string') throw new Error(`the owner file of session ${sessionId} names no owner`);
    return owner;
  }

  private pathOf(sessionId: string, workspace: string): string {
    return companionPath(this.recorder.transcriptPath(workspace, sessionId), OWNER_SUFFIX);
  }
}

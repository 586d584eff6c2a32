import { randomUUID } from 'node:crypto';
import type { Clock } from '../common/clock.js';
import type { ChatRecordingService } from '../transcript/chat-recording.service.js';
import type { BranchedSession } from '../wire/wire-types.js';
import { createdSessionOf } from './created-session.js';
import type { SessionOwnerFiles } from './session-owner-files.js';
import type { SessionRegistry } from './session-registry.js';
import type { SessionStarts } from './session-starts.js';
import type { Session } from './session.js';

/** What a fork reads and writes: the live sessions, the starts, the transcripts and the owner records. */
export interface ForkParts {
  registry: SessionRegistry;
  starts: SessionStarts;
  recorder: ChatRecordingService;
  owners: SessionOwnerFiles;
  clock: Clock;
}

/** The fork path of `POST /session/:id/fork` and `/branch`: a new live session cloned from a live one's active chain. */
export class SessionForker {
  constructor(private readonly parts: ForkParts) {}

  /** Clones `source` (docs/routes.md), answered in the peer's shape of a branch (docs/qwen-serve.md). */
  async branch(source: Session): Promise<BranchedSession> {
    const { registry, starts, recorder, owners } = this.parts;
    const refused = starts.refusal();
    if (refused) throw refused;
    const sessionId = source.id;
    const forkId = randomUUID();
    const { workspace } = source;
    // The clone inherits the source's owner, recorded before it is live.
    const owner = registry.ownerOf(sessionId);
    const prepare = async () => {
      await recorder.fork(sessionId, forkId, workspace.cwd);
      await owners.write(forkId, workspace.cwd, owner);
      return [];
    };
    // Starting, as any session: counted against the bound, and not made live if its lease is lost meanwhile.
    const session = await starts.start(forkId, { workspace, resume: true, owner, prepare });
    return { ...createdSessionOf(registry, this.parts.clock, session, false), forkedFrom: { sessionId } };
  }
}

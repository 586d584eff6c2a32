// Bodies of the daemon's session and prompt routes, as they travel: shared by
// the runtime that answers them and the client that reads them.

/**
 * What `POST /session` answers.
 *
 * @publicApi
 */
export interface CreatedSession {
  sessionId: string;
  workspaceCwd: string;
  attached: boolean;
  clientId: string;
  /** ISO 8601. */
  createdAt: string;
}

/**
 * What `POST /session/:id/load` and `/resume` answer (docs/qwen-serve.md): the session,
 * whether a prompt is pending, and where its event stream stands.
 *
 * @publicApi
 */
export interface RestoredSession extends CreatedSession {
  state: Record<string, never>;
  hasActivePrompt: boolean;
  hasRunningBackgroundTasks: false;
  lastEventId: number;
  eventEpoch: string;
}

/**
 * What `POST /session/:id/branch` answers: the new session, never attached.
 *
 * @publicApi
 */
export interface BranchedSession extends CreatedSession {
  forkedFrom: { sessionId: string };
}

/**
 * What `POST /session/:id/prompt` answers.
 *
 * @publicApi
 */
export interface AdmittedPrompt {
  promptId: string;
  /** Id of the `pending_prompt_added` event; subscribe after it. */
  lastEventId: number;
  /** Event id space of this daemon process. */
  eventEpoch: string;
}

/**
 * One row of `GET /session/:id/pending-prompts`.
 *
 * @publicApi
 */
export interface PendingPrompt {
  promptId: string;
  text: string;
  queuedAt: number;
  state: 'queued' | 'running';
  originatorClientId?: string;
}

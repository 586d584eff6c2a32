// nest-turn-status/client: a typed client of the daemon on the platform fetch
// (Node >= 20 and browsers). Loads nothing of Nest.

export {
  TurnsClient,
  type TurnsClientOptions,
  type Capabilities,
  type WaitOptions,
  type EventsOptions,
  type AdmissionOptions,
  type ListTurnsOptions,
} from './turns-client.js';
export { TurnsApiError, TurnsConnectionError, TurnWindowExpiredError, TurnWaitTimeoutError } from './errors.js';
export type {
  TurnStatus,
  IdleTurnStatus,
  QueuedTurnStatus,
  RunningTurnStatus,
  TurnActivity,
  CompletedTurnStatus,
  CancelledTurnStatus,
  ErrorTurnStatus,
  LiveTurnStatus,
  SettledTurnStatus,
  TurnPage,
} from '../turns/turn-status.js';
export type { TurnState } from '../common/turn-state.js';
export type { TurnError } from '../common/normalize-turn-error.js';
export type { PromptBlock } from '../common/turn-fields.js';
export type {
  SessionEvent,
  SessionEventData,
  SessionEventKind,
  SessionEventType,
  SessionStreamMarker,
  SessionStreamMarkerData,
} from '../common/session-event.js';
export type { CreatedSession, AdmittedPrompt, PendingPrompt } from '../common/wire-types.js';

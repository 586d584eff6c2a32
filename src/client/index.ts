// nest-turn-status/client: a typed client of the daemon on the platform fetch
// (Node >= 20 and browsers). Loads nothing of Nest.

export { TurnsClient } from './turns-client.js';
export type {
  TurnsClientOptions,
  Capabilities,
  WaitOptions,
  EventsOptions,
  AdmissionOptions,
  ListTurnsOptions,
  PermissionRequestContext,
  PermissionRequestListener,
  RateLimitWait,
} from './client-options.js';
export { TurnsApiError, TurnsConnectionError, TurnWindowExpiredError, TurnWaitTimeoutError, type TurnsErrorCode } from './errors.js';
export type { ApiErrorCode } from '../errors/error-catalogue.js';
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
  PendingInteraction,
  PendingInteractionOption,
} from '../turns/turn-status.js';
export type { TurnState } from '../turns/rules/turn-state.js';
export type { CapabilityLimits } from '../wire/capability-limits.js';
export type { TurnError } from '../turns/rules/normalize-turn-error.js';
export type { PromptBlock } from '../turns/rules/turn-fields.js';
export type {
  SessionEvent,
  SessionEventData,
  SessionEventKind,
  SessionEventType,
  SessionStreamMarker,
  SessionStreamMarkerData,
  PermissionOutcome,
} from '../wire/session-event.js';
export type { CreatedSession, AdmittedPrompt, PendingPrompt } from '../wire/wire-types.js';

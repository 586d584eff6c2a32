// nest-turn-status: the turn status module. What a host can import is decided
// here, name by name; everything else is internal.

import { assertSingleCopy } from './common/single-copy.js';

// One copy of the injection tokens per process (see assertSingleCopy).
assertSingleCopy();

export { TurnsModule } from './turns/turns.module.js';
export type { TurnsModuleOptions, TurnsModuleExtras } from './turns/turns.module-definition.js';
export { TurnStatusService } from './turns/turn-status.service.js';
export { TurnStatusRoute } from './turns/turn-status-route.decorator.js';
export { documentTurnRoutes } from './turns/turns-openapi.js';
export { BridgeOverlayProvider } from './turns/bridge-overlay.provider.js';
export { TerminalOverlay, type TerminalOverlayOptions, type OverlayEntry } from './turns/overlay/terminal-overlay.js';
export { TranscriptScanService, type MaybePromise } from './turns/transcript-scan.service.js';
export { TURN_LIST_LIMITS } from './turns/list/turn-page.js';
export {
  TURN_STATUS_DTOS,
  TurnStatusDto,
  IdleTurnStatusDto,
  QueuedTurnStatusDto,
  RunningTurnStatusDto,
  TurnActivityDto,
  CompletedTurnStatusDto,
  CancelledTurnStatusDto,
  ErrorTurnStatusDto,
  TurnErrorDto,
} from './turns/turn-status.dto.js';
export { TurnUsageDto } from './turns/turn-usage.dto.js';
export type { TurnUsage, TurnTokens } from './turns/rules/turn-usage.js';
export { TURN_STATES, TERMINAL_TURN_STATES, isTerminalState, type TurnState, type TerminalTurnState } from './turns/rules/turn-state.js';
export {
  isLiveStatus,
  isSettledStatus,
  type TurnStatus,
  type IdleTurnStatus,
  type QueuedTurnStatus,
  type RunningTurnStatus,
  type TurnActivity,
  type PendingInteraction,
  type PendingInteractionOption,
  type CompletedTurnStatus,
  type CancelledTurnStatus,
  type ErrorTurnStatus,
  type LiveTurnStatus,
  type SettledTurnStatus,
  type TurnPage,
} from './turns/turn-status.js';

export { ClientIdGuard, CLIENT_ID_REQUEST_KEY, type GuardedRequest } from './client-id/client-id.guard.js';
export { ClientId } from './client-id/client-id.decorator.js';
export { ClientIdOptions, DEFAULT_CLIENT_ID_HEADER } from './client-id/client-id-options.js';
export { SessionClientLookup } from './client-id/session-client-lookup.js';

export { ApiException } from './errors/api-exception.js';
export { ApiExceptionFilter } from './errors/api-exception.filter.js';
export { ErrorResponseDto } from './errors/error-response.dto.js';
export {
  ERROR_CATALOGUE,
  type ApiErrorCode,
  type ApiErrorDetails,
  type AnyErrorDetails,
  type ErrorCatalogueEntry,
} from './errors/error-catalogue.js';
export type { ErrorDetail } from './errors/error-details.js';
export { apiError } from './errors/api-errors.js';
export { Clock, SystemClock } from './common/clock.js';
export { TURN_LIMITS, TERMINAL_OVERLAY_SIZE, TRANSCRIPT_SCAN_LIMITS, RESULT_TEXT_TRUNCATED } from './turns/rules/limits.js';
export { CLIENT_ID_PATTERN } from './client-id/client-id-pattern.js';
export { truncateCodeUnits } from './turns/rules/truncate-code-units.js';
export { normalizeTurnError, type TurnError } from './turns/rules/normalize-turn-error.js';
export { limitTurnFields, promptTextOf, type PromptBlock } from './turns/rules/turn-fields.js';
export type { TurnOutcome } from './turns/rules/turn-outcome.js';
export type { CreatedSession, AdmittedPrompt, PendingPrompt } from './wire/wire-types.js';
export type { CapabilityLimits } from './wire/capability-limits.js';
export type {
  SessionEvent,
  SessionEventData,
  SessionEventKind,
  SessionEventType,
  PermissionAnswer,
  PermissionOutcome,
  PermissionRequestOption,
} from './wire/session-event.js';

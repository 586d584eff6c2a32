import type { TokenCounts } from './token-counts.js';
import { TurnsChannel } from './turns-channel.js';

/** Where a turn poll's answer came from (docs/operating.md). */
export type PollSource = 'memory' | 'scan' | 'not_found' | 'not_modified';

/** A terminal state a prompt settles in. */
export type SettledState = 'completed' | 'cancelled' | 'error';

/**
 * How a request for approval ended (docs/permissions.md): by the kind of option chosen (`selected`: a kind neither `allow_*`
 * nor `reject_*`), or `cancelled`.
 */
export type PermissionOutcomeKind = 'allowed' | 'rejected' | 'selected' | 'cancelled';

/**
 * Who decided it: a client, the operator's policy, the time-out, the end of its turn (cancel, deadline, close), or
 * the bound on the requests pending in a session.
 */
export type PermissionDecider = 'client' | 'policy' | 'timeout' | 'turn_end' | 'limit' | 'client_left';

/**
 * The daemon's observable events, each on its own diagnostics channel
 * (`nest-turn-status:<name>`). Metrics subscribe to them; a host may too.
 */
export const TURNS_CHANNELS = {
  /** A turn poll was answered. */
  poll: new TurnsChannel<PollSource>('nest-turn-status:poll'),
  /** One transcript scan ended (found, missed or failed). */
  transcriptScan: new TurnsChannel<{ durationMs: number; bytesRead: number }>('nest-turn-status:transcript-scan'),
  /** A prompt entered its session's FIFO (acknowledged with 202 once its ledger record is synced). */
  promptAdmitted: new TurnsChannel<{ sessionId: string }>('nest-turn-status:prompt-admitted'),
  /** An admitted prompt was taken back before it was acknowledged (its ledger record refused or failed): 503, never run. */
  promptWithdrawn: new TurnsChannel<{ sessionId: string }>('nest-turn-status:prompt-withdrawn'),
  /** A prompt was dispatched into its Session, after waiting `queueWaitMs` in the FIFO. */
  promptStarted: new TurnsChannel<{ queueWaitMs: number }>('nest-turn-status:prompt-started'),
  /** A prompt's terminal was published; `runMs` when it had started. */
  promptSettled: new TurnsChannel<{ state: SettledState; runMs?: number }>('nest-turn-status:prompt-settled'),
  /** A turn's agent reported more tokens: how many more, by kind (each token is on this channel once). */
  tokens: new TurnsChannel<TokenCounts>('nest-turn-status:tokens'),
  /** An agent process started, exited, or failed to start. */
  agentProcess: new TurnsChannel<{ event: 'start' | 'exit' | 'start_failure'; sessionId: string }>('nest-turn-status:agent-process'),
  /** A live session was closed for being idle too long (docs/operating.md#idle-sessions). */
  sessionReaped: new TurnsChannel<{ sessionId: string; idleMs: number }>('nest-turn-status:session-reaped'),
  recorderAppendFailed: new TurnsChannel<{ sessionId: string }>('nest-turn-status:recorder-append-failed'),
  /** A request forwarded to its session's owner: `forwarded`, or `unreachable` when the owner could not be reached. */
  clusterForward: new TurnsChannel<{ outcome: 'forwarded' | 'unreachable' }>('nest-turn-status:cluster-forward'),
  /** One webhook delivery attempt ended: delivered, to be retried, or given up (failed, disabled by 410, removed). */
  webhookAttempt: new TurnsChannel<{ outcome: 'delivered' | 'retry' | 'failed' }>('nest-turn-status:webhook-attempt'),
  /** A request for approval was decided. */
  permissionDecided: new TurnsChannel<{ outcome: PermissionOutcomeKind; decidedBy: PermissionDecider }>(
    'nest-turn-status:permission-decided',
  ),
  /** One lease renewal round: leases kept, and leases lost to another node. */
  clusterLeaseRenewal: new TurnsChannel<{ renewed: number; lost: number }>('nest-turn-status:cluster-lease-renewal'),
} as const;

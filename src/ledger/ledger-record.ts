import { TURN_LIMITS } from '../turns/rules/limits.js';
import { truncateCodeUnits } from '../turns/rules/truncate-code-units.js';
import type { SettledTurnStatus } from '../turns/turn-status.js';
import { fenceOf } from '../transcript/fence-order.js';
import type { RecordedIdempotency } from '../transcript/transcript-record.js';
import { isRecordedIdempotency } from '../idempotency/recorded-idempotency.js';
import { readTurnUsage, type TurnUsage } from '../turns/rules/turn-usage.js';
import { TOKEN_BUDGET_EXCEEDED } from '../bridge/token-budget.js';

/**
 * How a prompt ended, as the ledger records it (`interrupted`: settled at `load` after the daemon died).
 *
 * @publicApi
 */
export type LedgerTerminalState = 'completed' | 'cancelled' | 'error' | 'interrupted';

/**
 * Written when a prompt is admitted (queued ones too).
 *
 * @publicApi
 */
export interface LedgerInFlightRecord {
  v: 1;
  promptId: string;
  state: 'in_flight';
  /** The uuid of the transcript's last record at admission. */
  tailUuid?: string;
  at: number;
  /** The `Idempotency-Key` it was admitted with, and its answer: a replay on the next owner finds it (queued ones too). */
  idempotency?: RecordedIdempotency;
}

/**
 * Written at a prompt's first terminal publication, or by reconciliation at `load`.
 * `error` carries the normalized code only, never the message.
 *
 * @publicApi
 */
export interface LedgerTerminalRecord {
  v: 1;
  promptId: string;
  terminal: LedgerTerminalState;
  code?: string;
  stopReason?: string;
  at: number;
  /** What the turn had used when it settled, as the agent reported it (so a restart keeps it). */
  usage?: TurnUsage;
}

/** @publicApi */
export type LedgerRecord = LedgerInFlightRecord | LedgerTerminalRecord;

/** The stop reason of a prompt reconciled as completed because its `turn_result` is in the transcript. */
export const RECONSTRUCTED_FROM_TRANSCRIPT = 'reconstructed_from_transcript';
/** The code of a prompt reconciled as lost: the daemon died before it settled. */
export const DAEMON_LOST = 'daemon_lost';

const TERMINALS: readonly string[] = ['completed', 'cancelled', 'error', 'interrupted'];

const limited = (value: string | undefined) => (value === undefined ? undefined : truncateCodeUnits(value, TURN_LIMITS.identifier).text);

/** The admission record of a prompt. */
export function inFlightRecord(promptId: string, at: number, tailUuid?: string, idempotency?: RecordedIdempotency): LedgerInFlightRecord {
  return { v: 1, promptId, state: 'in_flight', ...(tailUuid !== undefined && { tailUuid }), at, ...(idempotency && { idempotency }) };
}

/** The terminal record of a published status: its state, `stopReason`, and for an error its code alone. */
export function terminalRecordOf(status: SettledTurnStatus): LedgerTerminalRecord {
  const code = status.state === 'error' ? status.error.code : undefined;
  return {
    v: 1,
    promptId: status.promptId,
    terminal: status.state,
    ...(code !== undefined && { code }),
    ...(status.stopReason !== undefined && { stopReason: status.stopReason }),
    at: status.endedAt,
    ...(status.usage && { usage: status.usage }),
  };
}

/** The terminal reconciliation gives a dangling prompt at `load`: completed when the transcript holds its `turn_result`, else lost. */
export function reconciledRecordOf(promptId: string, inTranscript: boolean, at: number): LedgerTerminalRecord {
  return inTranscript
    ? { v: 1, promptId, terminal: 'completed', stopReason: RECONSTRUCTED_FROM_TRANSCRIPT, at }
    : { v: 1, promptId, terminal: 'interrupted', code: DAEMON_LOST, at };
}

/**
 * The line a claim appends before its owner reads the ledger (cluster mode):
 * no `promptId`, so it is no record, only a fence the lines after it are held to.
 */
export function fenceMarkerLine(fence: number): string {
  return JSON.stringify({ v: 1, fence });
}

/** One ledger line as a record, or `undefined` for anything else (a torn or foreign line is skipped). */
export function parseLedgerLine(line: string): LedgerRecord | undefined {
  return readLedgerLine(line).record;
}

/**
 * One ledger line: its record, if it is one, and the fence it carries (cluster
 * mode: its writer's lease; a marker carries only that). The fence stays off
 * the record: it is the readers' business, never an answer's.
 */
export function readLedgerLine(line: string): { record?: LedgerRecord; fence?: number } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return {};
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
  const fence = fenceOf(value);
  const record = recordOf(value as Record<string, unknown>);
  return { ...(record && { record }), ...(fence !== undefined && { fence }) };
}

function recordOf(record: Record<string, unknown>): LedgerRecord | undefined {
  const { promptId, at } = record;
  if (record.v !== 1 || typeof promptId !== 'string' || promptId === '' || typeof at !== 'number' || !Number.isFinite(at)) {
    return undefined;
  }
  if (record.state === 'in_flight') {
    const tailUuid = typeof record.tailUuid === 'string' ? record.tailUuid : undefined;
    return inFlightRecord(promptId, at, tailUuid, isRecordedIdempotency(record.idempotency) ? record.idempotency : undefined);
  }
  if (typeof record.terminal !== 'string' || !TERMINALS.includes(record.terminal)) return undefined;
  const code = typeof record.code === 'string' ? record.code : undefined;
  const stopReason = typeof record.stopReason === 'string' ? record.stopReason : undefined;
  const usage = readTurnUsage(record.usage);
  return {
    v: 1,
    promptId,
    terminal: record.terminal as LedgerTerminalState,
    ...(code !== undefined && { code }),
    ...(stopReason !== undefined && { stopReason }),
    at,
    ...(usage && { usage }),
  };
}

export function isTerminalRecord(record: LedgerRecord): record is LedgerTerminalRecord {
  return 'terminal' in record;
}

/** Messages of the codes the runtime itself gives; the ledger keeps no message, so others read as below. */
const MESSAGES: Record<string, string> = {
  [DAEMON_LOST]: 'The daemon stopped before the prompt settled',
  session_closed: 'Session closed',
  prompt_deadline_exceeded: 'Prompt deadline exceeded',
  [TOKEN_BUDGET_EXCEEDED.code!]: TOKEN_BUDGET_EXCEEDED.message,
  forward_failed: 'Prompt forwarding failed',
};
const UNKNOWN_MESSAGE = 'Prompt failed (the ledger keeps no message)';

/**
 * The turn status a ledger terminal answers on the exact route: `interrupted`
 * reads `error` with code `daemon_lost`; the others their own state, with
 * `endedAt` the record's time. Persisted-only, so no `queuedAt`.
 */
export function statusOfTerminal(sessionId: string, record: LedgerTerminalRecord): SettledTurnStatus {
  const promptId = limited(record.promptId)!;
  const stopReason = limited(record.stopReason);
  const usage = record.usage && { usage: record.usage };
  const base = { sessionId, promptId, ...(stopReason !== undefined && { stopReason }), endedAt: record.at, ...usage };
  switch (record.terminal) {
    case 'completed':
    case 'cancelled':
      return { ...base, state: record.terminal };
    case 'error':
    case 'interrupted': {
      const code = record.terminal === 'interrupted' ? DAEMON_LOST : limited(record.code);
      const message = (code !== undefined && MESSAGES[code]) || UNKNOWN_MESSAGE;
      return { ...base, state: 'error', error: { message, ...(code !== undefined && { code }) } };
    }
    default: {
      const exhaustive: never = record.terminal;
      return exhaustive;
    }
  }
}

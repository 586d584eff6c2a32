import { limitPromptText, limitTurnFields } from '../turns/rules/turn-fields.js';
import type { PendingPrompt } from '../wire/wire-types.js';
import type { TurnError } from '../turns/rules/normalize-turn-error.js';
import {
  compactStatus,
  type LiveTurnStatus,
  type PendingInteraction,
  type SettledTurnStatus,
  type TerminalTurnState,
  type TurnActivity,
  type TurnUsage,
} from '../turns/turn-status.js';

/** What the bridge knows of an admitted prompt. */
export interface AdmittedPromptView {
  promptId: string;
  promptText: string;
  queuedAt: number;
  startedAt?: number;
  originatorClientId?: string;
  /** What the agent did so far, as polls may see it (running only). */
  activity?: TurnActivity;
  /** The tool calls it waits on approval for (running only; absent or empty: none). */
  pendingInteractions?: readonly PendingInteraction[];
  /** What the agent reported using so far (a terminal without its own carries it). */
  usage?: TurnUsage;
}

/** A terminal as it is published: the Session's outcome, or one the bridge made. */
export interface TerminalFields {
  state: TerminalTurnState;
  endedAt: number;
  stopReason?: string;
  error?: TurnError;
  resultText?: string;
  /** The Session's count of the turn's usage; absent on a terminal the bridge makes (the prompt's count so far then). */
  usage?: TurnUsage;
}

/** The live status of an admitted prompt: `queued` until dispatched, then `running`. */
export function liveStatus(sessionId: string, prompt: AdmittedPromptView): LiveTurnStatus {
  const { promptId, promptText, originatorClientId, queuedAt, startedAt, activity, pendingInteractions, usage } = prompt;
  const fields = limitTurnFields({ promptId, promptText, originatorClientId });
  if (startedAt === undefined) return compactStatus({ sessionId, state: 'queued', ...fields, queuedAt });
  const waiting = pendingInteractions?.length ? { pendingInteractions: [...pendingInteractions] } : {};
  return compactStatus({ sessionId, state: 'running', ...fields, queuedAt, startedAt, activity, ...waiting, usage });
}

/** The terminal status of an admitted prompt, within the wire limits. */
export function settledStatus(sessionId: string, prompt: AdmittedPromptView, terminal: TerminalFields): SettledTurnStatus {
  const { promptId, promptText, originatorClientId, queuedAt, startedAt } = prompt;
  const { state, endedAt, stopReason, error, resultText } = terminal;
  const usage = terminal.usage ?? prompt.usage;
  const fields = limitTurnFields({
    promptId,
    promptText,
    originatorClientId,
    stopReason,
    error: state === 'error' ? error : undefined,
    resultText,
  });
  return compactStatus({ sessionId, state, ...fields, queuedAt, startedAt, endedAt, usage }) as SettledTurnStatus;
}

/** A prompt as `GET /session/:id/prompts` lists it. */
export function pendingPromptOf(prompt: AdmittedPromptView, running: boolean): PendingPrompt {
  const { promptId, promptText, queuedAt, originatorClientId } = prompt;
  return {
    promptId,
    text: limitPromptText(promptText).promptText,
    queuedAt,
    state: running ? 'running' : 'queued',
    ...(originatorClientId !== undefined && { originatorClientId }),
  };
}

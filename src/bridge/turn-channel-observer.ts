import { TURNS_CHANNELS } from '../telemetry/turns-channels.js';
import { countTokens, type TokenKind, type TurnTokens } from '../turns/rules/turn-usage.js';
import type { TurnObserver } from './turn-transition.js';

/** Puts the stream on the prompt channels metrics (and a host) subscribe to. */
export const publishTurnChannels: TurnObserver = ({ kind, sessionId, status }) => {
  if (kind === 'admitted') {
    TURNS_CHANNELS.promptAdmitted.publish({ sessionId });
  } else if (kind === 'withdrawn') {
    TURNS_CHANNELS.promptWithdrawn.publish({ sessionId });
  } else if (kind === 'started' && status.state === 'running') {
    TURNS_CHANNELS.promptStarted.publish({ queueWaitMs: status.startedAt - status.queuedAt });
  } else if (kind === 'settled' && status.state !== 'queued' && status.state !== 'running') {
    const { state, startedAt, endedAt } = status;
    TURNS_CHANNELS.promptSettled.publish({ state, ...(startedAt !== undefined && { runMs: endedAt - startedAt }) });
  }
};

/** Puts the growth of a turn's tokens on the tokens channel (`turns_tokens_total{kind}`): each token counted once. */
export function countTurnTokens(turn: { tokensCounted?: Record<TokenKind, number> }, usage: TurnTokens): void {
  turn.tokensCounted ??= { input: 0, output: 0, thought: 0, cachedRead: 0 };
  const growth = countTokens(turn.tokensCounted, usage);
  if (Object.values(growth).some((n) => n > 0)) TURNS_CHANNELS.tokens.publish(growth);
}

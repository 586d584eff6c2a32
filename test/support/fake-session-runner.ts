import { TERMINAL_OVERLAY_SIZE } from '../../src/turns/rules/limits.js';
import type { TurnOutcome } from '../../src/turns/rules/turn-outcome.js';
import { PromptBridge } from '../../src/bridge/prompt-bridge.js';
import { SessionRunner, type SessionPrompt } from '../../src/bridge/session-runner.js';
import { SessionEventBus } from '../../src/events/session-event-bus.js';
import type { TurnHooks } from '../../src/bridge/turn-hooks.js';
import type { SessionEventType } from '../../src/wire/session-event.js';
import { ManualClock } from './manual-clock.js';

/** One prompt handed to the runner, and the handle the test settles it with. */
export interface Dispatch {
  input: SessionPrompt;
  signal: AbortSignal;
  settle(outcome: Partial<TurnOutcome>): void;
}

/** Sessions whose prompts settle when the test says so (the port behind the bridge; the testing kit fakes those in front). */
export class FakeRunner extends SessionRunner {
  readonly live = new Set<string>(['s']);
  readonly dispatched: Dispatch[] = [];
  constructor(private readonly clock: ManualClock) {
    super();
  }
  hasSession(sessionId: string): boolean {
    return this.live.has(sessionId);
  }
  isClientRegistered(sessionId: string, clientId: string): boolean {
    return this.live.has(sessionId) && clientId === 'client_a';
  }
  run(_sessionId: string, input: SessionPrompt, signal: AbortSignal): Promise<TurnOutcome> {
    return new Promise<TurnOutcome>((resolve) => {
      this.dispatched.push({
        input,
        signal,
        settle: (outcome) =>
          resolve({ promptId: input.promptId, state: 'completed', stopReason: 'end_turn', endedAt: this.clock.now(), ...outcome }),
      });
    });
  }
}

export type BridgeOptions = { maxPendingPrompts?: number; promptDeadlineMs?: number; promptMaxTokens?: number; overlaySize?: number };

/** A bridge over a FakeRunner for session 's', with its clock and the events published for 's'. */
export function bridgeRig() {
  const clock = new ManualClock();
  const events = new SessionEventBus(clock);
  const runner = new FakeRunner(clock);
  const published: Array<{ type: SessionEventType; promptId?: string }> = [];
  events.subscribe('s').subscribe((e) => published.push({ type: e.type, promptId: e.promptId }));
  /** A bridge with `hooks` (the permission broker, say) registered as its plug-in. */
  const bridge = (options: BridgeOptions = {}, hooks?: TurnHooks) => {
    const made = new PromptBridge(runner, events, clock, { maxPendingPrompts: 5, overlaySize: TERMINAL_OVERLAY_SIZE, ...options });
    if (hooks) made.use(hooks);
    return made;
  };
  return { clock, events, runner, dispatched: runner.dispatched, published, bridge };
}

export const text = (t: string) => [{ type: 'text', text: t }];
/** Lets the settled run's promise chain finish (the bridge awaits it before dispatching the next). */
export const flush = () => new Promise((resolve) => setImmediate(resolve));

export type BridgeRig = ReturnType<typeof bridgeRig>;

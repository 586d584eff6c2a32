import {
  AgentEngine,
  type EngineSession,
  type EngineTurnRequest,
  type EngineTurnResult,
  type EngineUpdate,
} from '../../src/engines/agent-engine.js';

/** One prompt inside the controlled engine, driven by the test. */
export interface ControlledTurn {
  sessionId: string;
  request: EngineTurnRequest;
  emit(update: EngineUpdate): void;
  say(text: string): void;
  finish(stopReason?: string): void;
  fail(error: unknown): void;
}

/**
 * An engine whose turns end only when the test says so: no sleeps, every
 * state (queued, running, settled) is reached deterministically.
 */
export class ControlledEngine extends AgentEngine {
  readonly name = 'controlled';
  /** When false, an aborted turn keeps running until the test finishes it. */
  honorAbort = true;
  private readonly started: ControlledTurn[] = [];
  private readonly waiters: Array<(turn: ControlledTurn) => void> = [];

  async openSession({ sessionId }: { sessionId: string }): Promise<EngineSession> {
    return {
      prompt: (request) => this.begin(sessionId, request),
      close: async () => undefined,
    };
  }

  /** The next turn the engine starts (already started or not yet). */
  nextTurn(): Promise<ControlledTurn> {
    const turn = this.started.shift();
    if (turn) return Promise.resolve(turn);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private begin(sessionId: string, request: EngineTurnRequest): Promise<EngineTurnResult> {
    return new Promise((resolve, reject) => {
      const turn: ControlledTurn = {
        sessionId,
        request,
        emit: (update) => request.onUpdate(update),
        say: (text) => request.onUpdate({ kind: 'message', text }),
        finish: (stopReason = 'end_turn') => resolve({ stopReason }),
        fail: reject,
      };
      // Cancellation is cooperative: the turn ends as "cancelled" when aborted.
      if (this.honorAbort) request.signal.addEventListener('abort', () => resolve({ stopReason: 'cancelled' }), { once: true });
      const waiter = this.waiters.shift();
      if (waiter) waiter(turn);
      else this.started.push(turn);
    });
  }
}

/** A promise with its resolvers, for ordering races by hand. */
export function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (error: unknown) => void } {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets pending promise callbacks (and I/O that is already done) run. */
export async function settle(times = 5): Promise<void> {
  for (let i = 0; i < times; i += 1) await new Promise((resolve) => setImmediate(resolve));
}

import {
  AgentEngine,
  type EnginePermissionOutcome,
  type EnginePermissionRequest,
  type EngineSession,
  type EngineSessionContext,
  type EngineTurnRequest,
  type EngineTurnResult,
  type EngineUpdate,
  type UsageReport,
} from '../engines/agent-engine.js';
import type { TurnTokens } from '../turns/rules/turn-usage.js';

/**
 * One prompt inside the {@link ScriptedEngine}: it streams and ends only when
 * the test says so.
 *
 * @publicApi
 */
export interface ScriptedTurn {
  readonly sessionId: string;
  readonly request: EngineTurnRequest;
  /** Streams a chunk of the final answer. */
  say(text: string): void;
  /** Streams a chunk of thought (never part of the final answer). */
  think(text: string): void;
  /** Streams a tool call, then (with `output`) its result. */
  tool(toolCallId: string, title: string, output?: string): void;
  /** Streams any update. */
  emit(update: EngineUpdate): void;
  /**
   * Reports usage as an agent does: tokens are one model response's (summed
   * over the turn); a {@link UsageReport} says more (`turn`: the turn's total,
   * `cost`: its cost in USD). A turn whose total passes its `maxTokens` ends
   * `error token_budget_exceeded` at once.
   */
  usage(report: TurnTokens | UsageReport): void;
  /**
   * Asks approval for a tool call, as an agent does before it runs one
   * (docs/permissions.md): the runtime holds the request — polls show it in
   * `pendingInteractions`, clients answer it over REST — and this settles
   * with the decision, or `cancelled` when the turn ends first. A string is
   * the tool call's title, with options allow once (`allow_once`) and
   * reject (`reject_once`), each its kind as its id.
   */
  askPermission(request?: string | EnginePermissionRequest): Promise<EnginePermissionOutcome>;
  /** Ends the turn with a stop reason. @default 'end_turn' */
  finish(stopReason?: string): void;
  /** Ends the turn with an engine error (e.g. a JSON-RPC error object). */
  fail(error: unknown): void;
}

/** The tool call and options of `askPermission('title')`. */
function permissionRequest(title: string, toolCallId: string): EnginePermissionRequest {
  return {
    toolCall: { toolCallId, title, kind: 'execute' },
    options: [
      { optionId: 'allow_once', name: 'Allow once', kind: 'allow_once' },
      { optionId: 'reject_once', name: 'Reject', kind: 'reject_once' },
    ],
  };
}

/**
 * An `AgentEngine` for `RuntimeModule` whose turns start when the runtime dispatches them and end only when the test
 * says so: every state is reached deterministically, without sleeps (docs/testing.md, with examples).
 *
 * @publicApi
 */
export class ScriptedEngine extends AgentEngine {
  readonly name = 'scripted';
  /** When false, a cancelled turn keeps running until the test ends it. @default true */
  honorAbort = true;
  private readonly started: ScriptedTurn[] = [];
  private readonly waiters: Array<(turn: ScriptedTurn) => void> = [];
  private nextToolCall = 1;

  async openSession({ sessionId }: EngineSessionContext): Promise<EngineSession> {
    return {
      prompt: (request) => this.begin(sessionId, request),
      close: async () => undefined,
    };
  }

  /** The next turn the engine starts (already started, or when it starts). */
  nextTurn(): Promise<ScriptedTurn> {
    const turn = this.started.shift();
    if (turn) return Promise.resolve(turn);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private begin(sessionId: string, request: EngineTurnRequest): Promise<EngineTurnResult> {
    return new Promise((resolve, reject) => {
      const emit = (update: EngineUpdate) => request.onUpdate(update);
      const turn: ScriptedTurn = {
        sessionId,
        request,
        emit,
        usage: (report) => request.onUsage?.('kind' in report ? report : { kind: 'response', tokens: report }),
        say: (text) => emit({ kind: 'message', text }),
        think: (text) => emit({ kind: 'thought', text }),
        tool: (toolCallId, title, output) => {
          emit({ kind: 'tool_call', toolCallId, title, status: 'pending' });
          if (output !== undefined) emit({ kind: 'tool_call_update', toolCallId, status: 'completed', output });
        },
        askPermission: async (asked = 'Run a tool') => {
          const permission = typeof asked === 'string' ? permissionRequest(asked, `scripted-${this.nextToolCall++}`) : asked;
          // No runtime to ask (an engine used alone): nobody can approve, so the tool is refused.
          return request.requestPermission ? request.requestPermission(permission) : { outcome: 'cancelled' };
        },
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

import type { PromptBlock } from '../turns/rules/turn-fields.js';
import type { UsageReport } from '../turns/rules/turn-usage-sum.js';

export type { UsageReport };

/**
 * One streamed piece of a turn, in the engine-neutral shape the Session
 * records; `wire` is the ACP update as the agent sent it, which the event
 * stream then carries unchanged (docs/qwen-serve.md).
 *
 * @publicApi
 */
export type EngineUpdate = (
  | { kind: 'message'; text: string }
  | { kind: 'thought'; text: string }
  | { kind: 'tool_call'; toolCallId: string; title: string; status?: string; rawInput?: unknown }
  | { kind: 'tool_call_update'; toolCallId: string; status?: string; output?: string }
) & { wire?: EngineUpdateWire };

/** The ACP update as the agent sent it: its kind, and whatever else it carries. */
export interface EngineUpdateWire {
  sessionUpdate: string;
  [field: string]: unknown;
}

/**
 * A tool call the agent asks approval for before it runs it (ACP
 * `session/request_permission`), as the agent sent it: `toolCall` is ACP's
 * tool call update (`title`, `kind`, `content`, `locations`, `rawInput`, ...).
 *
 * @publicApi
 */
export interface EnginePermissionRequest {
  toolCall: { toolCallId?: string; title?: string | null; kind?: string | null; [field: string]: unknown };
  options: readonly { optionId: string; name?: string; kind: string }[];
}

/**
 * The answer an engine hands back to its agent: one of the options offered, or `cancelled`.
 *
 * @publicApi
 */
export type EnginePermissionOutcome = { outcome: 'selected'; optionId: string } | { outcome: 'cancelled' };

/** The answer that runs nothing: a request cancelled (its turn ended, nobody to ask, refused unseen). */
export const PERMISSION_CANCELLED: EnginePermissionOutcome = Object.freeze({ outcome: 'cancelled' });

/**
 * What the Session hands an engine for one prompt.
 *
 * @publicApi
 */
export interface EngineTurnRequest {
  prompt: readonly PromptBlock[];
  /**
   * Aborted when the prompt is cancelled or removed; engines stop cooperatively.
   *
   * @publicApi
   */
  signal: AbortSignal;
  onUpdate(update: EngineUpdate): void;
  /**
   * Reports what the turn's model responses use, as the agent says: each
   * response's tokens (`response`), the turn's total (`turn`, which replaces
   * their sum) or its cost so far (`cost`). Report a response's usage before
   * asking approval for the tool calls it made: a token budget it passes then
   * refuses them. Absent: nobody counts usage.
   */
  onUsage?(report: UsageReport): void;
  /**
   * Asks the runtime to approve a tool call (docs/permissions.md): settles with the
   * decision (a client's, the policy's, or `cancelled` when the turn ends
   * first), exactly once. Absent: nobody can approve, so the engine refuses.
   */
  requestPermission?(request: EnginePermissionRequest): Promise<EnginePermissionOutcome>;
}

/**
 * How an engine's turn ended.
 *
 * @publicApi
 */
export interface EngineTurnResult {
  /** ACP stop reason: `end_turn`, `cancelled`, `max_tokens`, ... */
  stopReason: string;
}

/**
 * An engine's handle on one daemon session.
 *
 * @publicApi
 */
export interface EngineSession {
  /**
   * Runs one prompt; rejects with the engine's error (e.g. a JSON-RPC error).
   *
   * @publicApi
   */
  prompt(request: EngineTurnRequest): Promise<EngineTurnResult>;
  /**
   * Stops the session's agent. The bridge aborted its running turn first; unless `immediate`, an engine
   * may give that turn a bounded moment to end (to tell the agent its requests were cancelled).
   */
  close(options?: EngineCloseOptions): Promise<void>;
}

/**
 * How an engine session is closed.
 *
 * @publicApi
 */
export interface EngineCloseOptions {
  /** The session moved to another node: its workspace is another agent's now, so stop at once. */
  immediate?: boolean;
}

/**
 * The daemon session an engine session is opened for.
 *
 * @publicApi
 */
export interface EngineSessionContext {
  sessionId: string;
  /** Workspace directory the session (and an agent process) works in. */
  cwd: string;
  /** True when an existing, persisted session is being made live again. */
  resume: boolean;
}

/**
 * An agent engine: the `echo` engine, the `acp` engine, or a host's own. Injection token.
 *
 * @publicApi
 */
export abstract class AgentEngine {
  abstract readonly name: string;
  abstract openSession(context: EngineSessionContext): Promise<EngineSession>;
}

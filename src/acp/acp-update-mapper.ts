import type { EngineUpdate } from '../engines/agent-engine.js';
import { readCostUsd, readTurnTokens, type TurnTokens } from '../turns/rules/turn-usage.js';

/** The few fields of an ACP `session/update` this daemon reads. */
interface AcpUpdate {
  sessionUpdate: string;
  content?: unknown;
  toolCallId?: string;
  title?: string | null;
  status?: string | null;
  rawInput?: unknown;
  _meta?: Record<string, unknown> | null;
  cost?: { amount?: unknown; currency?: unknown } | null;
}

function textOf(content: unknown): string | undefined {
  const block = content as { type?: unknown; text?: unknown } | undefined;
  return block?.type === 'text' && typeof block.text === 'string' ? block.text : undefined;
}

/** Text of a tool call's content list (`[{type:"content", content:{type:"text", text}}]`). */
function toolOutput(content: unknown): string | undefined {
  if (!Array.isArray(content)) return undefined;
  const texts = content.flatMap((item) => {
    const text = textOf((item as { content?: unknown })?.content);
    return text === undefined ? [] : [text];
  });
  return texts.length > 0 ? texts.join('\n') : undefined;
}

/**
 * Maps an ACP `session/update` onto the engine-neutral updates the final-answer
 * rule reads; everything else (plans, mode changes, user echoes, usage) is
 * dropped. Updates an agent marks as coming from a subagent are excluded from
 * the main answer.
 */
export function mapAcpUpdate(update: AcpUpdate): EngineUpdate | undefined {
  if (update._meta && (update._meta['subagent'] || update._meta['parentToolCallId'])) return undefined;
  switch (update.sessionUpdate) {
    case 'agent_message_chunk': {
      const text = textOf(update.content);
      return text === undefined ? undefined : { kind: 'message', text };
    }
    case 'agent_thought_chunk': {
      const text = textOf(update.content);
      return text === undefined ? undefined : { kind: 'thought', text };
    }
    case 'tool_call':
      return {
        kind: 'tool_call',
        toolCallId: update.toolCallId ?? '',
        title: update.title ?? 'tool',
        ...(update.status && { status: update.status }),
        ...(update.rawInput !== undefined && { rawInput: update.rawInput }),
      };
    case 'tool_call_update': {
      const output = toolOutput(update.content);
      return {
        kind: 'tool_call_update',
        toolCallId: update.toolCallId ?? '',
        ...(update.status && { status: update.status }),
        ...(output !== undefined && { output }),
      };
    }
    default:
      return undefined;
  }
}

/**
 * What an ACP `session/update` says of usage: the tokens of one model
 * response (`_meta.usage` on an `agent_message_chunk`, as `qwen --acp` sends
 * once per response, a subagent's too: the turn paid for them), or the
 * session's cumulative cost (`usage_update.cost`, in US dollars only).
 */
export function acpUsageOf(update: AcpUpdate): { tokens: TurnTokens } | { sessionCostUsd: number } | undefined {
  if (update.sessionUpdate === 'agent_message_chunk') {
    const tokens = readTurnTokens(update._meta?.['usage']);
    return tokens && { tokens };
  }
  if (update.sessionUpdate === 'usage_update' && update.cost?.currency === 'USD') {
    const sessionCostUsd = readCostUsd(update.cost.amount);
    return sessionCostUsd === undefined ? undefined : { sessionCostUsd };
  }
  return undefined;
}

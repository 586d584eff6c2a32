import type { EnginePermissionRequest } from '../engines/agent-engine.js';
import { truncateCodeUnits } from '../turns/rules/truncate-code-units.js';
import type { PendingInteraction } from '../turns/turn-status.js';

/** SPEC §21: a title (and an option's label) at most this many UTF-16 code units. */
export const INTERACTION_TITLE_LIMIT = 4_096;
/** SPEC §21: a pending request, or a `permission_request`'s tool call, as JSON at most this many bytes. */
export const INTERACTION_MAX_BYTES = 16 * 1024;

/** The fields dropped, in this order, until what is left fits. */
const DROPPABLE = ['content', 'input', 'locations'] as const;
const TOOL_CALL_DROPPABLE = ['content', 'rawInput', 'locations'] as const;

const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));
const text = (value: unknown) => (typeof value === 'string' ? truncateCodeUnits(value, INTERACTION_TITLE_LIMIT).text : undefined);

/**
 * The pending request polls and the session status show for an agent's
 * request (the peer's `pendingInteractions` item), within SPEC §21's bounds:
 * a larger `content`, then `input`, then `locations` is dropped, with
 * `truncated: true`.
 */
export function pendingInteractionOf(requestId: string, createdAt: number, request: EnginePermissionRequest): PendingInteraction {
  const { toolCall } = request;
  const action: PendingInteraction['action'] = {};
  if (typeof toolCall.kind === 'string') action.type = toolCall.kind;
  const title = text(toolCall.title);
  if (title !== undefined) action.title = title;
  if (toolCall.content !== undefined) action.content = toolCall.content;
  if (toolCall.locations !== undefined) action.locations = toolCall.locations;
  if (toolCall.rawInput !== undefined) action.input = toolCall.rawInput;
  const options = request.options.map(({ optionId, name, kind }) => {
    const label = text(name);
    return { optionId, ...(label !== undefined && { label }), kind };
  });
  const item: PendingInteraction = { requestId, kind: 'permission', createdAt: new Date(createdAt).toISOString(), action, options };
  return dropUntilFits(item, item.action, DROPPABLE);
}

/** The agent's tool call as a `permission_request` event carries it: as sent, within the same bounds. */
export function boundedToolCall(toolCall: EnginePermissionRequest['toolCall']): Record<string, unknown> {
  const title = text(toolCall.title);
  const bounded: Record<string, unknown> = { ...toolCall, ...(title !== undefined && { title }) };
  return dropUntilFits(bounded, bounded, TOOL_CALL_DROPPABLE);
}

/** Drops `fields` of `holder` (a part of `whole`) in order until `whole` fits; marks it `truncated` if any went. */
function dropUntilFits<T extends object>(whole: T, holder: Record<string, unknown>, fields: readonly string[]): T {
  if (jsonBytes(whole) <= INTERACTION_MAX_BYTES) return whole;
  const marked = whole as T & { truncated?: true };
  marked.truncated = true;
  for (const field of fields) {
    delete holder[field];
    if (jsonBytes(marked) <= INTERACTION_MAX_BYTES) break;
  }
  return marked;
}

import type { EnginePermissionRequest } from '../engines/agent-engine.js';
import { INTERACTION_LIMITS } from '../turns/rules/limits.js';
import { truncateCodeUnits } from '../turns/rules/truncate-code-units.js';
import type { PendingInteraction, PendingInteractionOption } from '../turns/turn-status.js';

/** docs/permissions.md: a title at most this many UTF-16 code units. */
export const INTERACTION_TITLE_LIMIT = INTERACTION_LIMITS.title;
/** An option's label, and the action's and an option's `kind`, at most this many code units. */
export const INTERACTION_LABEL_LIMIT = INTERACTION_LIMITS.label;
/** An option id at most this many code units: the answer's bound, so every option offered can be chosen. */
export const OPTION_ID_LIMIT = INTERACTION_LIMITS.optionId;
/** Options offered at most (ACP agents offer two to four). */
export const INTERACTION_OPTIONS_LIMIT = INTERACTION_LIMITS.options;
/** docs/permissions.md: a pending request, or a `permission_request`'s tool call, as JSON at most this many bytes. */
export const INTERACTION_MAX_BYTES = INTERACTION_LIMITS.itemBytes;

/** The fields dropped, in this order, until what is left fits. */
const DROPPABLE = ['content', 'input', 'locations'] as const;
const TOOL_CALL_DROPPABLE = ['content', 'rawInput', 'locations'] as const;

type Options = EnginePermissionRequest['options'];

const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));
const cut = (value: unknown, limit: number) => (typeof value === 'string' ? truncateCodeUnits(value, limit).text : undefined);

/**
 * The options a client may choose, within bounds: at most
 * {@link INTERACTION_OPTIONS_LIMIT}, labels cut, and none whose id is longer
 * than the answer route accepts (the policies and the time-out still choose
 * among all the agent offered). `dropped` when any was left out.
 */
export function offeredOptions(options: Options): { options: PendingInteractionOption[]; dropped: boolean } {
  const selectable = options.filter(
    ({ optionId }) => typeof optionId === 'string' && optionId.length > 0 && optionId.length <= OPTION_ID_LIMIT,
  );
  const offered = selectable.slice(0, INTERACTION_OPTIONS_LIMIT).map(({ optionId, name, kind }) => {
    const label = cut(name, INTERACTION_LABEL_LIMIT);
    return { optionId, ...(label !== undefined && { label }), kind: cut(kind, INTERACTION_LABEL_LIMIT) ?? '' };
  });
  return { options: offered, dropped: offered.length < options.length };
}

/**
 * The pending request polls and the session status show for an agent's
 * request (the peer's `pendingInteractions` item), within docs/permissions.md's bounds
 * whatever the agent sent: each text cut to its limit, the options as
 * {@link offeredOptions}; then, while the JSON is over 16 KiB, `content`,
 * `input` and `locations` are dropped, the title cut, the labels dropped and
 * the last options dropped, in this order — with `truncated: true`.
 */
export function pendingInteractionOf(requestId: string, createdAt: number, request: EnginePermissionRequest): PendingInteraction {
  const { toolCall } = request;
  const action: PendingInteraction['action'] = {};
  const type = cut(toolCall.kind, INTERACTION_LABEL_LIMIT);
  if (type !== undefined) action.type = type;
  const title = cut(toolCall.title, INTERACTION_TITLE_LIMIT);
  if (title !== undefined) action.title = title;
  if (toolCall.content !== undefined) action.content = toolCall.content;
  if (toolCall.locations !== undefined) action.locations = toolCall.locations;
  if (toolCall.rawInput !== undefined) action.input = toolCall.rawInput;
  const { options, dropped } = offeredOptions(request.options);
  const item: PendingInteraction = { requestId, kind: 'permission', createdAt: new Date(createdAt).toISOString(), action, options };
  if (dropped) item.truncated = true;
  const fits = () => jsonBytes(item) <= INTERACTION_MAX_BYTES;
  const shrinks = [
    ...DROPPABLE.map((field) => () => delete action[field]),
    () => action.title !== undefined && (action.title = cutToFit(action.title, jsonBytes(item))),
    () => options.forEach((option) => delete option.label),
    // Each option is small now; only a pathological many-escapes set gets here.
    ...options.map(() => () => options.pop()),
  ];
  for (const shrink of shrinks) {
    if (fits()) break;
    item.truncated = true;
    shrink();
  }
  return item;
}

/** The agent's tool call as a `permission_request` event carries it: as sent, within the same bounds. */
export function boundedToolCall(toolCall: EnginePermissionRequest['toolCall']): Record<string, unknown> {
  const title = cut(toolCall.title, INTERACTION_TITLE_LIMIT);
  const kind = cut(toolCall.kind, INTERACTION_LABEL_LIMIT);
  const bounded: Record<string, unknown> = { ...toolCall, ...(title !== undefined && { title }), ...(kind !== undefined && { kind }) };
  if (jsonBytes(bounded) <= INTERACTION_MAX_BYTES) return bounded;
  bounded.truncated = true;
  for (const field of TOOL_CALL_DROPPABLE) {
    delete bounded[field];
    if (jsonBytes(bounded) <= INTERACTION_MAX_BYTES) return bounded;
  }
  // Still over: the agent's other fields, or a title of escapes. The id, the kind and the title cut to fit stay.
  const id = cut(toolCall.toolCallId, OPTION_ID_LIMIT);
  const minimal: Record<string, unknown> = {
    ...(id !== undefined && { toolCallId: id }),
    ...(kind !== undefined && { kind }),
    ...(title !== undefined && { title }),
    truncated: true,
  };
  if (typeof minimal.title === 'string' && jsonBytes(minimal) > INTERACTION_MAX_BYTES) {
    minimal.title = cutToFit(minimal.title, jsonBytes(minimal));
  }
  return minimal;
}

/** The longest start of `title` that is short, as JSON, by what `bytes` is over the bound (a code unit is 1 to 6 bytes). */
function cutToFit(title: string, bytes: number): string {
  const budget = jsonBytes(title) - (bytes - INTERACTION_MAX_BYTES);
  let [low, high] = [0, title.length];
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (jsonBytes(truncateCodeUnits(title, mid).text) <= budget) low = mid;
    else high = mid - 1;
  }
  return truncateCodeUnits(title, low).text;
}

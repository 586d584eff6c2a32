import { boundedToolCall, INTERACTION_MAX_BYTES, pendingInteractionOf } from './pending-interaction.js';

const OPTIONS = [
  { optionId: 'proceed_once', name: 'Allow', kind: 'allow_once' },
  { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
];
const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

describe('pendingInteractionOf', () => {
  it('is the peer’s item: the tool call as action, the options with their labels', () => {
    const item = pendingInteractionOf('req', 0, {
      toolCall: { toolCallId: 'c1', title: 'echo ran > marker.txt', kind: 'execute', rawInput: { command: 'echo ran' }, locations: [] },
      options: OPTIONS,
    });
    expect(item).toEqual({
      requestId: 'req',
      kind: 'permission',
      createdAt: '1970-01-01T00:00:00.000Z',
      action: { type: 'execute', title: 'echo ran > marker.txt', input: { command: 'echo ran' }, locations: [] },
      options: [
        { optionId: 'proceed_once', label: 'Allow', kind: 'allow_once' },
        { optionId: 'reject', label: 'Reject', kind: 'reject_once' },
      ],
    });
  });

  it('cuts the title at 4,096 code units', () => {
    const item = pendingInteractionOf('req', 0, { toolCall: { title: 'x'.repeat(5_000) }, options: [] });
    expect(item.action.title).toHaveLength(4_096);
    expect(item.truncated).toBeUndefined();
  });

  it('drops a large content first, then the input, and says so', () => {
    const big = 'y'.repeat(INTERACTION_MAX_BYTES);
    const contentOnly = pendingInteractionOf('req', 0, { toolCall: { title: 't', content: [big], rawInput: { a: 1 } }, options: OPTIONS });
    expect(contentOnly.action).toEqual({ title: 't', input: { a: 1 } });
    expect(contentOnly.truncated).toBe(true);
    const both = pendingInteractionOf('req', 0, { toolCall: { title: 't', content: [big], rawInput: { a: big } }, options: OPTIONS });
    expect(both.action).toEqual({ title: 't' });
    expect(bytes(both)).toBeLessThanOrEqual(INTERACTION_MAX_BYTES);
  });

  it('bounds the tool call a permission_request event carries alike', () => {
    const big = 'z'.repeat(INTERACTION_MAX_BYTES);
    expect(boundedToolCall({ toolCallId: 'c', title: 't', rawInput: { a: 1 } })).toEqual({
      toolCallId: 'c',
      title: 't',
      rawInput: { a: 1 },
    });
    const cut = boundedToolCall({ toolCallId: 'c', title: 't', content: [big], rawInput: { a: 1 } });
    expect(cut).toEqual({ toolCallId: 'c', title: 't', rawInput: { a: 1 }, truncated: true });
  });
});

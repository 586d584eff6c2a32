import fc from 'fast-check';
import { isPermissionOutcome } from './permission.dto.js';
import {
  boundedToolCall,
  INTERACTION_MAX_BYTES,
  INTERACTION_OPTIONS_LIMIT,
  OPTION_ID_LIMIT,
  pendingInteractionOf,
} from './pending-interaction.js';

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

  it('bounds an event’s tool call whose own fields, or a title of escapes, are over 16 KiB: id, kind and the title cut to fit', () => {
    const call = { toolCallId: 'c', kind: 'execute', title: '\u0001'.repeat(4_096), _meta: { note: 'x'.repeat(30_000) } };
    const bounded = boundedToolCall(call);
    expect(bytes(bounded)).toBeLessThanOrEqual(INTERACTION_MAX_BYTES);
    expect(bounded).toEqual({ toolCallId: 'c', kind: 'execute', title: expect.any(String), truncated: true });
    expect(bounded.title).toBe('\u0001'.repeat((bounded.title as string).length));
    expect((bounded.title as string).length).toBeGreaterThan(2_000);
  });

  it('cuts the type and the labels at 256 code units, never through a surrogate pair', () => {
    const label = 'x'.repeat(255) + '😀';
    const item = pendingInteractionOf('req', 0, {
      toolCall: { kind: 'k'.repeat(300) },
      options: [{ optionId: 'a', name: label, kind: 'allow_once' }],
    });
    expect(item.action.type).toHaveLength(256);
    expect(item.options[0]!.label).toBe('x'.repeat(255));
  });

  it('offers at most 16 options, and none whose id an answer could not name, and says so', () => {
    const many = Array.from({ length: 20 }, (_, i) => ({ optionId: `o${i}`, kind: 'allow_once' }));
    const capped = pendingInteractionOf('req', 0, { toolCall: {}, options: many });
    expect(capped.options.map((o) => o.optionId)).toEqual(many.slice(0, INTERACTION_OPTIONS_LIMIT).map((o) => o.optionId));
    expect(capped.truncated).toBe(true);
    const long = { optionId: 'i'.repeat(OPTION_ID_LIMIT + 1), kind: 'allow_always' };
    const item = pendingInteractionOf('req', 0, { toolCall: {}, options: [long, ...OPTIONS] });
    expect(item.options.map((o) => o.optionId)).toEqual(['proceed_once', 'reject']);
    expect(item.truncated).toBe(true);
    const atBound = pendingInteractionOf('req', 0, { toolCall: {}, options: [{ ...long, optionId: 'i'.repeat(OPTION_ID_LIMIT) }] });
    expect(atBound.options).toHaveLength(1);
    expect(isPermissionOutcome({ outcome: 'selected', optionId: atBound.options[0]!.optionId })).toBe(true);
  });

  it('cuts a title of escaped characters until the item fits, a pair kept whole', () => {
    // 5 code units, 22 bytes of JSON: 4,096 code units of it are about 18 KB.
    const item = pendingInteractionOf('req', 0, { toolCall: { title: '😀\u0001\u0001\u0001'.repeat(1_000) }, options: OPTIONS });
    expect(bytes(item)).toBeLessThanOrEqual(INTERACTION_MAX_BYTES);
    expect(item.truncated).toBe(true);
    expect(item.options).toHaveLength(2);
    expect(item.action.title!.length).toBeGreaterThan(1_000);
    const title = item.action.title!;
    expect('😀\u0001\u0001\u0001'.repeat(1_000).startsWith(title)).toBe(true);
    expect(title.charCodeAt(title.length - 1)).not.toBe('😀'.charCodeAt(0)); // no half pair at the end
  });

  it('yields an item of at most 16 KiB, every option of it selectable, whatever the agent sends (property)', () => {
    // Any UTF-16 code unit: control characters and lone surrogates take six bytes of JSON each.
    const unit = fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code));
    const text = (maxLength: number) => fc.oneof(fc.string({ unit, maxLength, size: 'max' }), fc.string({ maxLength, size: 'max' }));
    const option = fc.record({ optionId: text(400), name: text(5_000), kind: text(400) }, { requiredKeys: ['optionId', 'kind'] });
    const toolCall = fc.record(
      {
        kind: text(400),
        title: text(20_000),
        content: fc.array(text(5_000), { maxLength: 4 }),
        rawInput: fc.dictionary(text(20), text(5_000)),
        locations: fc.array(fc.record({ path: text(3_000) }), { maxLength: 3 }),
        // A field of the agent's own (ACP's `_meta`, say): the event carries it as sent while it fits.
        _meta: fc.dictionary(text(20), text(5_000)),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(toolCall, fc.array(option, { maxLength: 40 }), (call, options) => {
        const item = pendingInteractionOf('req', 0, { toolCall: call, options });
        expect(bytes(item)).toBeLessThanOrEqual(INTERACTION_MAX_BYTES);
        expect(bytes(boundedToolCall(call))).toBeLessThanOrEqual(INTERACTION_MAX_BYTES);
        for (const offered of item.options) expect(isPermissionOutcome({ outcome: 'selected', optionId: offered.optionId })).toBe(true);
      }),
      { numRuns: 150, endOnFailure: true },
    );
  });
});

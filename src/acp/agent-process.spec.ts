import { isPermissionRequest } from './agent-process.js';

describe('isPermissionRequest', () => {
  it('takes a request with a tool call and options that each have an id and a kind', () => {
    const options = [{ optionId: 'proceed_once', name: 'Allow', kind: 'allow_once' }];
    expect(isPermissionRequest({ sessionId: 's', toolCall: { toolCallId: 'c' }, options })).toBe(true);
    expect(isPermissionRequest({ toolCall: {}, options: [] })).toBe(true);
  });

  it('refuses one an agent sent without a tool call, without options, or with an option missing its id or kind', () => {
    for (const params of [
      undefined,
      null,
      {},
      { toolCall: null, options: [] },
      { toolCall: 'rm -rf /', options: [] },
      { toolCall: {} },
      { toolCall: {}, options: {} },
      { toolCall: {}, options: [null] },
      { toolCall: {}, options: [{ optionId: 'x' }] },
      { toolCall: {}, options: [{ optionId: 1, kind: 'allow_once' }] },
    ]) {
      expect({ params, ok: isPermissionRequest(params) }).toEqual({ params, ok: false });
    }
  });
});

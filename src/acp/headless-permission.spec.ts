import { headlessPermission } from './headless-permission.js';

describe('headlessPermission', () => {
  it('allows once where the agent offers it, else always', () => {
    const offered = [
      { kind: 'reject_once', optionId: 'no' },
      { kind: 'allow_always', optionId: 'always' },
      { kind: 'allow_once', optionId: 'once' },
    ] as const;
    expect(headlessPermission(offered)).toEqual({ outcome: { outcome: 'selected', optionId: 'once' } });
    expect(headlessPermission(offered.slice(0, 2))).toEqual({ outcome: { outcome: 'selected', optionId: 'always' } });
  });

  it('declines when nothing allows', () => {
    expect(headlessPermission([{ kind: 'reject_always', optionId: 'never' }])).toEqual({ outcome: { outcome: 'cancelled' } });
    expect(headlessPermission([])).toEqual({ outcome: { outcome: 'cancelled' } });
  });
});

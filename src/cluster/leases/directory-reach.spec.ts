import { afterRenewal, type DirectoryReach } from './directory-reach.js';

describe('afterRenewal', () => {
  const up: DirectoryReach = { reachable: true };

  it('starts an outage at the first failed renewal, and keeps its start through later failures', () => {
    const first = afterRenewal(up, false, 300);
    expect(first).toEqual({ reach: { reachable: false, since: 300 }, changed: true });
    expect(afterRenewal(first.reach, false, 600)).toEqual({ reach: { reachable: false, since: 300 }, changed: false });
  });

  it('ends the outage at the first answered renewal, a change only then', () => {
    expect(afterRenewal({ reachable: false, since: 300 }, true, 900)).toEqual({ reach: up, changed: true });
    expect(afterRenewal(up, true, 1_200)).toEqual({ reach: up, changed: false });
  });
});

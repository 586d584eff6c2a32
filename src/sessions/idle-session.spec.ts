import { idleSince, idleTooLong, reapEveryMs, type SessionActivity } from './idle-session.js';

const quiet: SessionActivity = { liveSince: 1_000, openStreams: 0, pendingPrompts: 0, pendingApprovals: 0 };

describe('idleSince', () => {
  it('counts from the newest of start, event, heartbeat and stream end', () => {
    expect(idleSince(quiet)).toBe(1_000);
    expect(idleSince({ ...quiet, newestEventAt: 5_000, lastHeartbeatAt: 3_000 })).toBe(5_000);
    expect(idleSince({ ...quiet, newestEventAt: 2_000, lastHeartbeatAt: 7_000 })).toBe(7_000);
    expect(idleSince({ ...quiet, newestEventAt: 2_000, streamEndedAt: 9_000 })).toBe(9_000);
  });

  it.each([
    ['watched', { openStreams: 1 }],
    ['busy', { pendingPrompts: 1 }],
    ['waiting on approval', { pendingApprovals: 1 }],
  ])('is never idle while %s', (_, busy) => {
    expect(idleSince({ ...quiet, ...busy })).toBeUndefined();
  });
});

describe('idleTooLong', () => {
  it('is due once the timeout has passed since', () => {
    expect(idleTooLong(1_000, 1_999, 1_000)).toBe(false);
    expect(idleTooLong(1_000, 2_000, 1_000)).toBe(true);
  });

  it('never for a busy session or a timeout of 0', () => {
    expect(idleTooLong(undefined, 1e12, 1_000)).toBe(false);
    expect(idleTooLong(0, 1e12, 0)).toBe(false);
  });
});

describe('reapEveryMs', () => {
  it('looks a quarter of the timeout apart, from 1 s to 1 min', () => {
    expect(reapEveryMs(1_800_000)).toBe(60_000);
    expect(reapEveryMs(40_000)).toBe(10_000);
    expect(reapEveryMs(100)).toBe(1_000);
  });
});

import { SessionWatchers } from './session-watchers.js';

describe('SessionWatchers', () => {
  it("calls a session's listeners only, survives one that throws, and forgets a removed one", () => {
    const logger = { error: jest.fn() };
    const watchers = new SessionWatchers(logger);
    const a = jest.fn();
    const other = jest.fn();
    const remove = watchers.add('s', a);
    watchers.add('s', () => {
      throw new TypeError('boom');
    });
    watchers.add('t', other);
    watchers.notify('s');
    expect(a).toHaveBeenCalledTimes(1);
    expect(other).not.toHaveBeenCalled();
    expect(logger.error).toHaveBeenCalledWith('turn watcher failed: TypeError');
    remove();
    remove();
    watchers.notify('s');
    expect(a).toHaveBeenCalledTimes(1);
    watchers.forget('t');
    expect(watchers.has('t')).toBe(false);
    watchers.notify('t');
    expect(other).not.toHaveBeenCalled();
  });
});

import { ManualClock } from '../../test/support/manual-clock.js';
import { REPEATED_SIGNAL_MS, ShutdownSignal } from './shutdown-signal.js';

describe('ShutdownSignal', () => {
  it('shuts down on the first signal and exits at once on a second', () => {
    const clock = new ManualClock();
    const signals = new ShutdownSignal(clock);
    expect(signals.receive('SIGTERM')).toBe('shut down');
    clock.time += REPEATED_SIGNAL_MS;
    expect(signals.receive('SIGTERM')).toBe('exit now');
  });

  it('takes the same signal again at once as the first delivered twice (a Ctrl-C under npm start)', () => {
    const clock = new ManualClock();
    const signals = new ShutdownSignal(clock);
    expect(signals.receive('SIGINT')).toBe('shut down');
    expect(signals.receive('SIGINT')).toBe('repeat');
    clock.time += REPEATED_SIGNAL_MS - 1;
    expect(signals.receive('SIGINT')).toBe('repeat');
    clock.time += 1;
    expect(signals.receive('SIGINT')).toBe('exit now');
  });

  it('exits at once on a different signal, however soon', () => {
    const signals = new ShutdownSignal(new ManualClock());
    expect(signals.receive('SIGINT')).toBe('shut down');
    expect(signals.receive('SIGTERM')).toBe('exit now');
  });
});

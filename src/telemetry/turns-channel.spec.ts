import { channel } from 'node:diagnostics_channel';
import { TurnsChannel } from './turns-channel.js';

describe('TurnsChannel', () => {
  it('delivers to subscribers until they unsubscribe, and is inactive without any', () => {
    const events = new TurnsChannel<{ n: number }>('nest-turn-status:test-a');
    expect(events.active).toBe(false);
    const seen: number[] = [];
    const stop = events.subscribe(({ n }) => seen.push(n));
    expect(events.active).toBe(true);
    events.publish({ n: 1 });
    stop();
    events.publish({ n: 2 });
    expect(seen).toEqual([1]);
    expect(events.active).toBe(false);
  });

  it('is a plain diagnostics channel: a host can subscribe by name', () => {
    const events = new TurnsChannel<string>('nest-turn-status:test-b');
    const seen: unknown[] = [];
    const listener = (message: unknown) => seen.push(message);
    channel('nest-turn-status:test-b').subscribe(listener);
    events.publish('memory');
    channel('nest-turn-status:test-b').unsubscribe(listener);
    expect(seen).toEqual(['memory']);
  });
});

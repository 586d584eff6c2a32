import { TURNS_CHANNELS } from '../telemetry/turns-channels.js';
import { SessionQueueCore } from './session-queue-core.js';
import { publishTurnChannels } from './turn-channel-observer.js';

describe('publishTurnChannels', () => {
  it('puts a withdrawn admission on its own channel, and nothing on the terminal one', () => {
    const seen: unknown[] = [];
    const stops = [
      TURNS_CHANNELS.promptWithdrawn.subscribe((m) => seen.push(['withdrawn', m])),
      TURNS_CHANNELS.promptSettled.subscribe((m) => seen.push(['settled', m])),
    ];
    try {
      const core = new SessionQueueCore({ now: () => 1_000, logger: { error: () => undefined }, observers: [publishTurnChannels] });
      const a = { promptId: 'a', promptText: 'a', queuedAt: 1_000, published: false };
      core.admit('withdrawn', a);
      core.withdraw('withdrawn', a);
      expect(seen).toEqual([['withdrawn', { sessionId: 'withdrawn' }]]);
    } finally {
      for (const stop of stops) stop();
    }
  });

  it('puts admissions, starts (with the queue wait) and terminals (with the run time, once) on the prompt channels', () => {
    let time = 1_000;
    const seen: unknown[] = [];
    const stops = [
      TURNS_CHANNELS.promptAdmitted.subscribe((m) => seen.push(['admitted', m])),
      TURNS_CHANNELS.promptStarted.subscribe((m) => seen.push(['started', m])),
      TURNS_CHANNELS.promptSettled.subscribe((m) => seen.push(['settled', m])),
    ];
    try {
      const core = new SessionQueueCore({ now: () => time, logger: { error: () => undefined }, observers: [publishTurnChannels] });
      const a = { promptId: 'a', promptText: 'a', queuedAt: time, published: false };
      const b = { promptId: 'b', promptText: 'b', queuedAt: time, published: false };
      core.admit('channels', a);
      core.admit('channels', b);
      time += 250;
      core.dispatch('channels');
      time += 750;
      core.settle('channels', a, { state: 'completed', endedAt: time });
      core.settle('channels', a, { state: 'error', error: { message: 'x' }, endedAt: time }); // dropped by the latch
      core.settle('channels', b, { state: 'cancelled', endedAt: time });
      core.settleLate('channels', a, { state: 'completed', endedAt: time });
      expect(seen).toEqual([
        ['admitted', { sessionId: 'channels' }],
        ['admitted', { sessionId: 'channels' }],
        ['started', { queueWaitMs: 250 }],
        ['settled', { state: 'completed', runMs: 750 }],
        ['settled', { state: 'cancelled' }],
      ]);
    } finally {
      for (const stop of stops) stop();
    }
  });
});

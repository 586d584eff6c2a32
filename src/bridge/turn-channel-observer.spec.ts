import { TURNS_CHANNELS } from '../telemetry/turns-channels.js';
import { SessionQueueCore } from './session-queue-core.js';
import { publishTurnChannels } from './turn-channel-observer.js';

describe('publishTurnChannels', () => {
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

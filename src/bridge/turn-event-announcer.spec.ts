import { clientPseudonym } from '../client-id/client-pseudonym.js';
import { ManualClock } from '../../test/support/manual-clock.js';
import { SessionEventBus } from '../events/session-event-bus.js';
import { SessionQueueCore } from './session-queue-core.js';
import { announceTurnEvents } from './turn-event-announcer.js';

describe('announceTurnEvents', () => {
  it('sends a terminal event for every prompt, and the pending_prompt_* events only for one that waited', () => {
    const clock = new ManualClock();
    const events = new SessionEventBus(clock);
    const seen: Array<{ type: string; promptId?: string; originatorClientId?: string; data: unknown }> = [];
    events
      .subscribe('s')
      .subscribe((e) => seen.push({ type: e.type, promptId: e.promptId, originatorClientId: e.originatorClientId, data: e.data }));
    const core = new SessionQueueCore({
      now: () => clock.now(),
      logger: { error: () => undefined },
      observers: [announceTurnEvents(events)],
    });
    const a = { promptId: 'a', promptText: 'first', queuedAt: clock.now(), published: false };
    const b = { promptId: 'b', promptText: 'second', queuedAt: clock.now(), originatorClientId: 'client_b', published: false };
    core.admit('s', a);
    core.admit('s', b);
    core.dispatch('s');
    core.settle('s', a, { state: 'completed', stopReason: 'end_turn', endedAt: clock.now() });
    core.release('s', a);
    core.dispatch('s');
    core.settle('s', b, { state: 'error', error: { message: 'no', code: 'agent_error' }, endedAt: clock.now() });
    expect(seen.map((e) => `${e.type} ${e.promptId}`)).toEqual([
      'pending_prompt_added b',
      'turn_complete a',
      'pending_prompt_started b',
      'turn_error b',
      'pending_prompt_completed b',
    ]);
    // The bus names a client by its pseudonym (docs/security.md#client-ids-are-capabilities).
    expect(seen[0]).toMatchObject({
      originatorClientId: clientPseudonym('s', 'client_b'),
      data: { sessionId: 's', promptId: 'b', text: 'second' },
    });
    expect(seen[3]).toMatchObject({ data: { code: 'agent_error', message: 'no' } });
    expect(seen[4]).toMatchObject({ data: { state: 'completed' } });
  });
});

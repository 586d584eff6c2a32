import type { TurnStatus } from '../turns/turn-status.js';
import { eventTypeOf, turnWebhookEventOf, type TurnWebhookEvent } from './turn-webhook-event.js';

const base = { sessionId: 's1', promptId: 'p1' };
const statuses: TurnStatus[] = [
  { sessionId: 's1', state: 'idle' },
  { ...base, state: 'queued', queuedAt: 1 },
  { ...base, state: 'running', queuedAt: 1, startedAt: 2 },
  { ...base, state: 'completed', endedAt: 3, resultText: 'done' },
  { ...base, state: 'cancelled', endedAt: 3 },
  { ...base, state: 'error', endedAt: 3, error: { code: 'agent_error', message: 'boom' } },
];

/** What a receiver reads off each event: it only compiles if `type` narrows `data`. */
function describeEvent(event: TurnWebhookEvent): string {
  switch (event.type) {
    case 'turn.started':
      return `${event.data.promptId} started at ${event.data.startedAt}`;
    case 'turn.completed':
      return `${event.data.promptId}: ${event.data.resultText ?? ''}`;
    case 'turn.cancelled':
      return `${event.data.promptId} cancelled at ${event.data.endedAt}`;
    case 'turn.error':
      return `${event.data.promptId} failed: ${event.data.error.code}`;
    case 'turn.permission_requested':
      return `${event.data.promptId} waits on ${event.requestId}`;
    default: {
      const exhaustive: never = event;
      return exhaustive;
    }
  }
}

describe('turnWebhookEventOf', () => {
  it('sends running and settled statuses as the event of their state, and nothing for idle or queued', () => {
    const events = statuses.map((status) => turnWebhookEventOf(status, 9));
    expect(events.map((event) => event?.type)).toEqual([
      undefined,
      undefined,
      'turn.started',
      'turn.completed',
      'turn.cancelled',
      'turn.error',
    ]);
    expect(events.map((event) => event?.type)).toEqual(statuses.map((status) => eventTypeOf(status.state)));
    expect(events[3]).toEqual({ type: 'turn.completed', timestamp: 9, data: statuses[3] });
  });

  it('gives receivers a union on type: each branch reads its own status', () => {
    const events = statuses.map((status) => turnWebhookEventOf(status, 9)).filter((event) => event !== undefined);
    expect(events.map(describeEvent)).toEqual(['p1 started at 2', 'p1: done', 'p1 cancelled at 3', 'p1 failed: agent_error']);
    const completed = events[1]!;
    if (completed.type === 'turn.completed') {
      // @ts-expect-error a completed status has no error
      expect(completed.data.error).toBeUndefined();
    }
  });
});

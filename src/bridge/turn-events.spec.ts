import { asKnownDaemonEvent, normalizeDaemonEvent, type DaemonEvent } from '@qwen-code/sdk/daemon';
import { firstValueFrom, take, toArray } from 'rxjs';
import type { Clock } from '../common/clock.js';
import { SessionEventBus } from '../events/session-event-bus.js';
import { settledStatus } from './turn-status-projection.js';
import { pendingPromptAdded, pendingPromptCompleted, pendingPromptStarted, sessionUpdate, terminalEvent } from './turn-events.js';

const SID = '5c1d2a8e-7f7b-4a44-9a57-1f2e3d4c5b6a';
const PID = 'caa0b1c2-d3e4-4f50-8a6b-7c8d9e0f1a2b';
const prompt = { promptId: PID, promptText: 'hello', queuedAt: 1_000, startedAt: 1_010 };
const clock: Clock = { now: () => 2_000 };

/** An event as the bus sends it, for the SDK's own schema check. */
function envelope(type: string, data: unknown): DaemonEvent {
  return { id: 1, v: 1, type, data, _meta: { serverTimestamp: 2_000 } } as DaemonEvent;
}

/** The SDK's `asKnownDaemonEvent` accepts the payload (undefined means "malformed for its type"). */
function known(type: string, data: unknown): boolean {
  return asKnownDaemonEvent(envelope(type, data)) !== undefined;
}

describe('event shapes of docs/qwen-serve.md, checked by @qwen-code/sdk', () => {
  it('session_update wraps the ACP update with its session', () => {
    const data = sessionUpdate(SID, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hi' } });
    expect(known('session_update', data)).toBe(true);
    expect(data).toEqual({ sessionId: SID, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hi' } } });
  });

  it('pending_prompt_added, _started and _completed', () => {
    expect(known('pending_prompt_added', pendingPromptAdded(SID, prompt))).toBe(true);
    expect(known('pending_prompt_started', pendingPromptStarted(SID, prompt))).toBe(true);
    expect(known('pending_prompt_completed', pendingPromptCompleted(SID, PID, true))).toBe(true);
    expect(pendingPromptCompleted(SID, PID, false)).toEqual({ sessionId: SID, promptId: PID, state: 'removed' });
    // Our former shapes were refused by the SDK: the check can fail.
    expect(known('pending_prompt_added', { text: 'hello', queuedAt: 1_000 })).toBe(false);
    expect(known('pending_prompt_started', { startedAt: 1_010 })).toBe(false);
  });

  it('turn_complete carries sessionId, promptId and stopReason, also when cancelled', () => {
    for (const terminal of [
      { state: 'completed' as const, endedAt: 2_000, stopReason: 'end_turn', resultText: 'ok' },
      { state: 'cancelled' as const, endedAt: 2_000 },
    ]) {
      const event = terminalEvent(settledStatus(SID, prompt, terminal));
      expect(event.type).toBe('turn_complete');
      expect(known(event.type, event.data)).toBe(true);
      expect(event.data).toMatchObject({ sessionId: SID, promptId: PID, stopReason: expect.any(String) });
    }
  });

  it('turn_error carries sessionId, promptId, message and code', () => {
    const error = { message: 'Prompt deadline exceeded', code: 'prompt_deadline_exceeded' };
    const event = terminalEvent(settledStatus(SID, prompt, { state: 'error', endedAt: 2_000, error }));
    expect(event.type).toBe('turn_error');
    expect(known(event.type, event.data)).toBe(true);
    expect(event.data).toMatchObject({ sessionId: SID, promptId: PID, ...error });
  });

  it('state_resync_required and replay_complete as the bus opens a stream', async () => {
    const bus = new SessionEventBus(clock);
    bus.publish(SID, 'session_update', { data: sessionUpdate(SID, { sessionUpdate: 'agent_message_chunk', content: {} }) });
    bus.publish(SID, 'session_update', { data: sessionUpdate(SID, { sessionUpdate: 'agent_message_chunk', content: {} }) });
    const [resync] = await firstValueFrom(bus.resume(SID, 1, 'an-old-epoch').pipe(take(1), toArray()));
    expect(resync!.frame.type).toBe('state_resync_required');
    expect(known('state_resync_required', resync!.frame.data)).toBe(true);

    const frames = await firstValueFrom(bus.resume(SID, 0, bus.epochOf(SID)).pipe(take(3), toArray()));
    const complete = frames[2]!.frame;
    expect(complete).toMatchObject({ type: 'replay_complete', data: { lastReplayedEventId: 2, lastEventId: 2, replayedCount: 2 } });
    // The SDK's reducer has no schema for replay_complete; its UI normalizer reads the counts.
    expect(normalizeDaemonEvent(complete as DaemonEvent)).toEqual([
      expect.objectContaining({ type: 'session.replay_complete', replayedCount: 2, lastReplayedEventId: 2 }),
    ]);
  });
});

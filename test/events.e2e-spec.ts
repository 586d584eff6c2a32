import { get, type IncomingMessage } from 'node:http';
import { ADAPTERS, startDaemon, type TestDaemon } from './support/test-daemon.js';
import type { DaemonConfig } from '../src/daemon/daemon-config.js';
import type { DaemonOverrides } from '../src/daemon/daemon.module.js';

interface Frame {
  id?: string;
  event?: string;
  retry?: string;
  data?: string;
  comment?: string;
}

/**
 * Opens the SSE stream and collects frames until `count` frames have arrived;
 * `opened` resolves with the first frame, once the subscription is live.
 */
function readFrames(
  url: string,
  count: number,
  headers: Record<string, string> = {},
): Promise<{ res: IncomingMessage; frames: Frame[] }> & { opened: Promise<void> } {
  let opened!: () => void;
  const openedPromise = new Promise<void>((resolve) => (opened = resolve));
  const done = new Promise<{ res: IncomingMessage; frames: Frame[] }>((resolve, reject) => {
    const req = get(url, { headers }, (res) => {
      let buffer = '';
      const frames: Frame[] = [];
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (block.trim() === '') continue;
          const frame: Frame = {};
          for (const line of block.split('\n')) {
            if (line.startsWith(': ')) frame.comment = line.slice(2);
            const at = line.indexOf(': ');
            if (at > 0) frame[line.slice(0, at) as keyof Frame] = line.slice(at + 2);
          }
          frames.push(frame);
          opened();
          if (frames.length === count) {
            req.destroy();
            resolve({ res, frames });
          }
        }
      });
    });
    req.on('error', (error) => {
      if ((error as NodeJS.ErrnoException).code !== 'ECONNRESET') reject(error);
    });
  });
  return Object.assign(done, { opened: openedPromise });
}

describe.each(ADAPTERS)('GET /session/:id/events (%s)', (httpAdapter) => {
  let daemon: TestDaemon;
  const start = async (config: Partial<DaemonConfig> = {}, overrides: DaemonOverrides = {}) =>
    (daemon = await startDaemon({ httpAdapter, ...config }, overrides));
  afterEach(() => daemon.close(true));

  /** Waits until the turn route answers a terminal. */
  async function settled(sessionId: string, promptId: string): Promise<void> {
    for (let i = 0; i < 200; i += 1) {
      const { body } = await daemon.http.get(`/session/${sessionId}/turns/${promptId}`);
      if (body.state === 'completed' || body.state === 'cancelled' || body.state === 'error') return;
      await new Promise((resolve) => setImmediate(resolve));
    }
    throw new Error('turn did not settle');
  }

  it('streams events with SSE headers, retry, ids and the v1 envelope', async () => {
    await start();
    const { sessionId, clientId } = await daemon.createSession();
    // The originator's own stream (its request carries its id) names it by its id.
    const reading = readFrames(`${daemon.url}/session/${sessionId}/events`, 4, { 'X-Qwen-Client-Id': clientId });
    await reading.opened;
    const promptId = await daemon.prompt(sessionId, 'hi', clientId);
    const t = await daemon.engine.nextTurn();
    t.say('hello');
    t.finish();
    const { res, frames } = await reading;
    expect(res.headers['content-type']).toMatch(/text\/event-stream/);
    expect(res.headers['cache-control']).toMatch(/no-cache/);
    expect(res.headers['x-qwen-event-epoch']).toEqual(expect.any(String));
    expect(res.headers['x-qwen-sse-stream-id']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(frames[0]).toMatchObject({ retry: '3000' });
    const events = frames.slice(1).map((f) => ({ frame: f, data: JSON.parse(f.data!) }));
    // A prompt that does not wait has no pending_prompt_* events (docs/qwen-serve.md).
    expect(events.map((e) => e.frame.event)).toEqual(['session_update', 'session_update', 'turn_complete']);
    for (const { frame, data } of events) {
      expect(data).toMatchObject({
        id: Number(frame.id),
        v: 1,
        type: frame.event,
        promptId,
        originatorClientId: clientId,
        _meta: { serverTimestamp: expect.any(Number) },
      });
    }
    expect(events[0]!.data.data).toEqual({
      sessionId,
      update: { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'hi' } },
    });
    expect(events[1]!.data.data).toEqual({
      sessionId,
      update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hello' } },
    });
    expect(events[2]!.data.data).toMatchObject({ sessionId, promptId, state: 'completed', stopReason: 'end_turn' });
  });

  it('gives each stream its own id and each session its own epoch', async () => {
    await start();
    const a = await daemon.createSession({ sessionScope: 'thread' });
    const b = await daemon.createSession({ sessionScope: 'thread' });
    const [ra, rb, ra2] = await Promise.all([
      readFrames(`${daemon.url}/session/${a.sessionId}/events`, 1),
      readFrames(`${daemon.url}/session/${b.sessionId}/events`, 1),
      readFrames(`${daemon.url}/session/${a.sessionId}/events`, 1),
    ]);
    expect(ra.res.headers['x-qwen-sse-stream-id']).not.toEqual(ra2.res.headers['x-qwen-sse-stream-id']);
    expect(ra.res.headers['x-qwen-event-epoch']).toEqual(ra2.res.headers['x-qwen-event-epoch']);
    expect(ra.res.headers['x-qwen-event-epoch']).not.toEqual(rb.res.headers['x-qwen-event-epoch']);
  });

  it('announces only the prompts that wait, and how they ended', async () => {
    await start();
    const { sessionId } = await daemon.createSession();
    const first = await daemon.prompt(sessionId, 'one');
    const running = await daemon.engine.nextTurn();
    const second = await daemon.prompt(sessionId, 'two');
    const third = await daemon.prompt(sessionId, 'three');
    await daemon.http.delete(`/session/${sessionId}/pending-prompts/${third}`).expect(200);
    running.finish();
    (await daemon.engine.nextTurn()).finish();
    await settled(sessionId, second);
    const { frames } = await readFrames(`${daemon.url}/session/${sessionId}/events`, 13, { 'Last-Event-ID': '0' });
    const pending = frames
      .slice(1)
      .filter((f) => f.event?.startsWith('pending_prompt_'))
      .map((f) => [f.event, JSON.parse(f.data!).data]);
    expect(pending).toEqual([
      ['pending_prompt_added', { sessionId, promptId: second, text: 'two', queuedAt: expect.any(Number) }],
      ['pending_prompt_added', { sessionId, promptId: third, text: 'three', queuedAt: expect.any(Number) }],
      ['pending_prompt_completed', { sessionId, promptId: third, state: 'removed' }],
      ['pending_prompt_started', { sessionId, promptId: second, text: 'two' }],
      ['pending_prompt_completed', { sessionId, promptId: second, state: 'completed' }],
    ]);
    expect(frames.some((f) => f.data !== undefined && JSON.parse(f.data).promptId === first && f.event?.startsWith('pending'))).toBe(false);
    expect(frames.at(-1)).toMatchObject({ event: 'replay_complete' });
  });

  it('replays from Last-Event-ID and closes the replay with replay_complete', async () => {
    await start();
    const { sessionId } = await daemon.createSession();
    const promptId = await daemon.prompt(sessionId, 'hi');
    const t = await daemon.engine.nextTurn();
    t.say('a');
    t.finish();
    await settled(sessionId, promptId);
    const epoch = (await readFrames(`${daemon.url}/session/${sessionId}/events`, 1)).res.headers['x-qwen-event-epoch'] as string;
    // Events so far: 1 user echo, 2 agent chunk, 3 turn_complete.
    const { frames } = await readFrames(`${daemon.url}/session/${sessionId}/events`, 4, {
      'Last-Event-ID': '1',
      'X-Qwen-Event-Epoch': epoch,
    });
    expect(frames[0]).toMatchObject({ id: '1', retry: '3000' });
    expect(frames.slice(1).map((f) => [f.id, f.event])).toEqual([
      ['2', 'session_update'],
      ['3', 'turn_complete'],
      ['3', 'replay_complete'],
    ]);
    const complete = JSON.parse(frames[3]!.data!);
    expect(complete).not.toHaveProperty('id');
    expect(complete).toMatchObject({ v: 1, type: 'replay_complete', data: { lastReplayedEventId: 3, lastEventId: 3, replayedCount: 2 } });
    expect(JSON.parse(frames[2]!.data!).data).toMatchObject({ promptId, state: 'completed' });
  });

  it('opens with state_resync_required for a Last-Event-ID of another epoch', async () => {
    await start();
    const { sessionId } = await daemon.createSession();
    const promptId = await daemon.prompt(sessionId, 'hi');
    (await daemon.engine.nextTurn()).finish();
    await settled(sessionId, promptId);
    const { frames } = await readFrames(`${daemon.url}/session/${sessionId}/events`, 2, {
      'Last-Event-ID': '1',
      'X-Qwen-Event-Epoch': 'an-epoch-of-before',
    });
    expect(frames[1]).toMatchObject({ event: 'state_resync_required', id: '2' });
    expect(JSON.parse(frames[1]!.data!).data).toEqual({ reason: 'epoch_reset', lastDeliveredId: 1, earliestAvailableId: 1 });
  });

  it('sends a heartbeat comment on an idle stream', async () => {
    await start({}, { sseHeartbeatMs: 20 });
    const { sessionId } = await daemon.createSession();
    const { frames } = await readFrames(`${daemon.url}/session/${sessionId}/events`, 3);
    expect(frames.slice(1)).toEqual([{ comment: 'heartbeat' }, { comment: 'heartbeat' }]);
  });

  it('answers 404 before streaming for an unknown session', async () => {
    await start();
    await daemon.http.get('/session/00000000-0000-4000-8000-000000000000/events').expect(404);
  });
});

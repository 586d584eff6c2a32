import { get, type IncomingMessage } from 'node:http';
import { ADAPTERS, startDaemon, type TestDaemon } from './support/test-daemon.js';

interface Frame {
  id?: string;
  event?: string;
  retry?: string;
  data?: string;
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
  beforeEach(async () => {
    daemon = await startDaemon({ httpAdapter });
  });
  afterEach(() => daemon.close(true));

  it('streams events with SSE headers, retry, ids and the v1 envelope', async () => {
    const { sessionId, clientId } = await daemon.createSession();
    const reading = readFrames(`${daemon.url}/session/${sessionId}/events`, 5);
    await reading.opened;
    const promptId = await daemon.prompt(sessionId, 'hi', clientId);
    const t = await daemon.engine.nextTurn();
    t.say('hello');
    t.finish();
    const { res, frames } = await reading;
    expect(res.headers['content-type']).toMatch(/text\/event-stream/);
    expect(res.headers['cache-control']).toMatch(/no-cache/);
    expect(res.headers['x-qwen-event-epoch']).toEqual(expect.any(String));
    expect(frames[0]).toMatchObject({ retry: '3000' });
    const events = frames.slice(1).map((f) => ({ frame: f, data: JSON.parse(f.data!) }));
    expect(events.map((e) => e.frame.event)).toEqual(['pending_prompt_added', 'pending_prompt_started', 'session_update', 'turn_complete']);
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
    expect(events[2]!.data.data).toEqual({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hello' } });
  });

  it('replays from Last-Event-ID', async () => {
    const { sessionId } = await daemon.createSession();
    const promptId = await daemon.prompt(sessionId, 'hi');
    const t = await daemon.engine.nextTurn();
    t.finish();
    for (let i = 0; i < 100 && (await daemon.http.get(`/session/${sessionId}/turns/${promptId}`)).body.state !== 'completed'; i += 1);
    // Events so far: 1 added, 2 started, 3 turn_complete, 4 pending_prompt_completed.
    const { frames } = await readFrames(`${daemon.url}/session/${sessionId}/events`, 3, { 'Last-Event-ID': '2' });
    expect(frames[0]).toMatchObject({ id: '2', retry: '3000' });
    expect(frames.slice(1).map((f) => [f.id, f.event])).toEqual([
      ['3', 'turn_complete'],
      ['4', 'pending_prompt_completed'],
    ]);
    expect(JSON.parse(frames[1]!.data!).data).toMatchObject({ promptId, state: 'completed' });
  });

  it('answers 404 before streaming for an unknown session', async () => {
    await daemon.http.get('/session/00000000-0000-4000-8000-000000000000/events').expect(404);
  });
});

import { TurnWaitService } from '../src/turns/wait/turn-wait.service.js';
import type { ScriptedTurn } from '../src/testing/scripted-engine.js';
import { settle } from './support/deferred.js';
import { ManualClock } from './support/manual-clock.js';
import { pollTurn } from './support/poll.js';
import { ADAPTERS, startDaemon, tempDir, type TestDaemon } from './support/test-daemon.js';

type Body = Record<string, unknown>;

/** Every page of GET /turns, following nextPageToken (bounded). */
async function listAll(daemon: TestDaemon, sessionId: string, limit: number, state?: string): Promise<Body[][]> {
  const pages: Body[][] = [];
  let token: string | undefined;
  do {
    const query = new URLSearchParams({ limit: String(limit), ...(state && { state }), ...(token && { pageToken: token }) });
    const res = await daemon.http.get(`/session/${sessionId}/turns?${query}`).expect(200);
    expect(res.headers['cache-control']).toBe('no-cache');
    pages.push(res.body.turns);
    token = res.body.nextPageToken;
  } while (token && pages.length < 50);
  return pages;
}

/** Lets the held requests reach the server and register (bounded). */
async function heldRequests(daemon: TestDaemon, count: number): Promise<void> {
  const waits = daemon.app.get(TurnWaitService);
  for (let i = 0; i < 1_000 && waits.waiting < count; i += 1) await settle();
  expect(waits.waiting).toBe(count);
}

describe.each(ADAPTERS)('turn history and activity (%s)', (httpAdapter) => {
  let daemon: TestDaemon;
  let clock: ManualClock;
  let dataDir: string;

  beforeEach(async () => {
    clock = new ManualClock(1_796_000_000_000);
    dataDir = tempDir();
    daemon = await startDaemon({ httpAdapter, dataDir, promptDeadlineMs: 600_000 }, { clock });
  });
  afterEach(() => daemon.close(true));

  /** Admits a prompt one clock tick after the previous one. */
  const admit = (sessionId: string, text: string, extra?: Body) => {
    clock.time += 10;
    return daemon.prompt(sessionId, text, undefined, extra);
  };

  it('lists 30 prompts (removed, deadline, error among them) newest first in pages of 7, each as its exact poll', async () => {
    const { sessionId } = await daemon.createSession();
    const admitted: string[] = [];
    let running: { promptId: string; turn: ScriptedTurn } | undefined;
    const startNext = async (text: string, extra?: Body) => {
      const promptId = await admit(sessionId, text, extra);
      admitted.push(promptId);
      running = { promptId, turn: await daemon.engine.nextTurn() };
    };
    for (let i = 0; i < 30;) {
      await startNext(`prompt ${i}`);
      i += 1;
      if (i === 5 || i === 12 || i === 20) {
        // A queued prompt removed while another runs.
        const removed = await admit(sessionId, `removed ${i}`);
        admitted.push(removed);
        await daemon.http.delete(`/session/${sessionId}/pending-prompts/${removed}`).expect(200, { removed: true });
        i += 1;
      }
      if (i === 9) {
        // A queued prompt whose deadline passes behind the running one.
        const late = await admit(sessionId, 'too late', { deadlineMs: 1 });
        admitted.push(late);
        await pollTurn(daemon, sessionId, late);
        i += 1;
      }
      if (i === 15) {
        running!.turn.fail(Object.assign(new Error('agent failed'), { code: -32603 }));
      } else {
        running!.turn.say(`answer ${i}`);
        running!.turn.finish();
      }
      await pollTurn(daemon, sessionId, running!.promptId);
    }
    expect(admitted).toHaveLength(30);

    const pages = await listAll(daemon, sessionId, 7);
    expect(pages.map((page) => page.length)).toEqual([7, 7, 7, 7, 2]);
    const listed = pages.flat();
    expect(listed.map((turn) => turn.promptId)).toEqual([...admitted].reverse());
    for (const turn of listed) {
      const exact = await daemon.http.get(`/session/${sessionId}/turns/${turn.promptId as string}`).expect(200);
      expect(turn).toEqual(exact.body);
    }
    const states = listed.map((turn) => turn.state);
    expect(states.filter((state) => state === 'cancelled')).toHaveLength(3);
    expect(states.filter((state) => state === 'error')).toHaveLength(2);
    expect(listed.find((turn) => (turn.error as Body | undefined)?.code === 'prompt_deadline_exceeded')).toBeDefined();

    // The filter, and a 304 for a page that did not change.
    const errors = (await listAll(daemon, sessionId, 100, 'error')).flat();
    expect(errors.map((turn) => turn.promptId)).toEqual(listed.filter((turn) => turn.state === 'error').map((turn) => turn.promptId));
    const page = await daemon.http.get(`/session/${sessionId}/turns?limit=3`).expect(200);
    await daemon.http.get(`/session/${sessionId}/turns?limit=3`).set('If-None-Match', page.headers.etag).expect(304);

    // After a restart the list reads the transcript and the ledger: every prompt is there again, once, as its exact poll.
    await daemon.close();
    daemon = await startDaemon({ httpAdapter, dataDir, promptDeadlineMs: 600_000 }, { clock });
    await daemon.http.get(`/session/${sessionId}/turns`).expect(404);
    await daemon.http.post(`/session/${sessionId}/load`).expect(200);
    const reread = (await listAll(daemon, sessionId, 7)).flat();
    expect(new Set(reread.map((turn) => turn.promptId))).toEqual(new Set(admitted));
    expect(reread).toHaveLength(30);
    for (const turn of reread) {
      const exact = await daemon.http.get(`/session/${sessionId}/turns/${turn.promptId as string}`).expect(200);
      expect(turn).toEqual(exact.body);
    }
  });

  it('answers bad queries with structured 400s, after the session check', async () => {
    const { sessionId } = await daemon.createSession();
    const bad = async (query: string, code: string) => {
      const res = await daemon.http.get(`/session/${sessionId}/turns?${query}`).expect(400);
      expect(res.body).toMatchObject({ error: expect.any(String), code });
    };
    await bad('state=done', 'invalid_turn_state');
    await bad('limit=0', 'invalid_limit');
    await bad('limit=101', 'invalid_limit');
    await bad('pageToken=nope', 'invalid_page_token');
    await daemon.http
      .get('/session/5c1d2a8e-7f7b-4a44-9a57-1f2e3d4c5b6a/turns?limit=0')
      .expect(404)
      .expect((res) => expect(res.body.code).toBe('session_not_found'));
    await daemon.http.get(`/session/${sessionId}/turns`).set('X-Qwen-Client-Id', 'client_unknown').expect(400);
    const capabilities = await daemon.http.get('/capabilities').expect(200);
    expect(capabilities.body.features).toContain('session_turn_list');
    // current and :promptId keep their meaning.
    await daemon.http.get(`/session/${sessionId}/turns/current`).expect(200, { sessionId, state: 'idle' });
    expect((await daemon.http.get(`/session/${sessionId}/turns`).expect(200)).body).toEqual({ turns: [] });
  });

  it('shows activity while the agent streams, at most once a second, and stops when it stops', async () => {
    const { sessionId } = await daemon.createSession();
    const promptId = await admit(sessionId, 'work');
    const turn = await daemon.engine.nextTurn();
    const exact = () => daemon.http.get(`/session/${sessionId}/turns/${promptId}`).expect(200);
    const first = await exact();
    expect(first.body).toMatchObject({ state: 'running' });
    expect(first.body.activity).toBeUndefined();

    // Within the first second: counted, not shown; the ETag does not move.
    turn.say('a');
    turn.think('b');
    await settle();
    expect((await exact()).headers.etag).toBe(first.headers.etag);

    clock.time += 1_000;
    turn.tool('t1', 'Read README.md');
    const busy = await exact();
    expect(busy.body.activity).toEqual({ events: 3, toolCalls: 1, lastEventAt: clock.time, lastTool: 'Read README.md' });
    expect(busy.headers.etag).not.toBe(first.headers.etag);
    // The same on current and in the list.
    expect((await daemon.http.get(`/session/${sessionId}/turns/current`).expect(200)).body).toEqual(busy.body);
    expect((await daemon.http.get(`/session/${sessionId}/turns`).expect(200)).body.turns).toEqual([busy.body]);

    // The agent goes quiet: an hour later the activity still names its last update.
    clock.time += 3_600_000;
    const quiet = await exact();
    expect(quiet.body.activity).toEqual(busy.body.activity);
    expect(quiet.headers.etag).toBe(busy.headers.etag);

    turn.finish();
    const done = await pollTurn(daemon, sessionId, promptId);
    expect(done).toMatchObject({ state: 'completed' });
    expect(done.activity).toBeUndefined();
  });

  it('never wakes a held waiter per update, unless it asked for activity', async () => {
    const { sessionId } = await daemon.createSession();
    const promptId = await admit(sessionId, 'stream');
    const turn = await daemon.engine.nextTurn();
    const etag = (await daemon.http.get(`/session/${sessionId}/turns/${promptId}`).expect(200)).headers.etag as string;
    const path = `/session/${sessionId}/turns/${promptId}`;
    const waits = daemon.app.get(TurnWaitService);
    const polls = jest.spyOn(waits as unknown as { poll: () => unknown }, 'poll');

    let plainAnswered = false;
    const plain = daemon.http
      .get(`${path}?waitMs=30000`)
      .set('If-None-Match', etag)
      .then((res) => ((plainAnswered = true), res));
    await heldRequests(daemon, 1);
    const pollsBefore = polls.mock.calls.length;
    // A hundred updates, each a second apart: the status's ETag moves a hundred times…
    for (let i = 0; i < 100; i += 1) {
      clock.time += 1_000;
      turn.say(`chunk ${i}`);
    }
    await settle(20);
    // …and the plain waiter was not polled once for them.
    expect(polls.mock.calls.length).toBe(pollsBefore);
    expect(plainAnswered).toBe(false);

    const moved = (await daemon.http.get(path).expect(200)).headers.etag as string;
    const watching = daemon.http.get(path).set('Prefer', 'wait=30; activity').set('If-None-Match', moved);
    const watched = watching.then((res) => res);
    await heldRequests(daemon, 2);
    clock.time += 1_000;
    turn.say('one more');
    const woken = await watched;
    expect(woken.status).toBe(200);
    expect(woken.headers['preference-applied']).toBe('wait=30');
    expect(woken.body.activity).toMatchObject({ events: 101, lastEventAt: clock.time });
    expect(plainAnswered).toBe(false);

    turn.finish();
    const answered = await plain;
    expect(answered.status).toBe(200);
    expect(answered.body.state).toBe('completed');
    polls.mockRestore();
  });
});

import fc from 'fast-check';
import { get } from 'node:http';
import type { ScriptedTurn } from '../src/testing/scripted-engine.js';
import { eventually } from './support/eventually.js';
import { ADAPTERS, startDaemon, type TestDaemon } from './support/test-daemon.js';

/** One step of a run: a client (by index; `-1` anonymous) prompts, answers, reads a surface, or the agent ends its turn. */
type Step =
  | { kind: 'prompt'; client: number }
  | { kind: 'answer'; client: number; allow: boolean }
  | { kind: 'read'; client: number; surface: number }
  | { kind: 'replay'; client: number }
  | { kind: 'finish' };

const CLIENTS = 3;
const SURFACES = ['turns/current', 'turns', 'pending-prompts', 'status', 'exact'] as const;
const client = fc.integer({ min: -1, max: CLIENTS - 1 });
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('prompt' as const), client }),
  fc.record({ kind: fc.constant('answer' as const), client, allow: fc.boolean() }),
  fc.record({ kind: fc.constant('read' as const), client, surface: fc.integer({ min: 0, max: SURFACES.length - 1 }) }),
  fc.record({ kind: fc.constant('replay' as const), client }),
  fc.constant({ kind: 'finish' as const }),
);

/** The replayed stream (`Last-Event-ID: 0`) as raw text, up to its `replay_complete`. */
function replay(url: string, headers: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const request = get(url, { headers: { ...headers, 'Last-Event-ID': '0' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        if (!text.includes('event: replay_complete')) return;
        request.destroy();
        resolve(text);
      });
    });
    request.on('error', (error) => {
      if ((error as NodeJS.ErrnoException).code !== 'ECONNRESET') reject(error);
    });
  });
}

describe.each(ADAPTERS)('no reader ever gets a client id not issued to it, over %s (a property)', (httpAdapter) => {
  let daemon: TestDaemon;
  beforeAll(async () => {
    daemon = await startDaemon({ httpAdapter, permissionResponder: 'designated' });
  });
  afterAll(() => daemon.close(true));

  it('holds for random runs of clients, prompts, answers and reads', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
        const { sessionId, clientId: first } = await daemon.createSession({ sessionScope: 'thread' });
        const ids = [first];
        while (ids.length < CLIENTS) ids.push((await daemon.createSession({ sessionId })).clientId);
        const headers = (index: number): Record<string, string> => (index < 0 ? {} : { 'X-Qwen-Client-Id': ids[index]! });
        /** Fails when `text`, delivered to reader `index`, holds an id issued to another client. */
        const deliveredTo = (index: number, text: string, what: string) => {
          for (const [other, id] of ids.entries())
            if (other !== index) expect([what, index, text.includes(id)]).toEqual([what, index, false]);
        };
        let turn: { scripted: ScriptedTurn; promptId: string; requestId: string; originator: number } | undefined;
        let anyEvent = false;
        for (const s of steps) {
          if (s.kind === 'prompt') {
            // One turn at a time: a prompt sent while one runs would wait in the queue for a turn nobody scripts.
            if (s.client >= 0 && turn) continue;
            const res = await daemon.http
              .post(`/session/${sessionId}/prompt`)
              .set(headers(s.client))
              .send({ prompt: [{ type: 'text', text: 'go' }] });
            deliveredTo(s.client, res.text, 'prompt');
            // Under designated, an anonymous prompt is refused.
            if (s.client < 0) {
              expect([res.status, res.body.code]).toEqual([400, 'client_id_required']);
              continue;
            }
            expect(res.status).toBe(202);
            const scripted = await daemon.engine.nextTurn();
            void scripted.askPermission('rm -rf build');
            const promptId: string = res.body.promptId;
            const held = await eventually(async () => {
              const poll = await daemon.http.get(`/session/${sessionId}/turns/${promptId}`);
              return poll.body.pendingInteractions?.[0]?.requestId as string | undefined;
            });
            turn = { scripted, promptId, requestId: held, originator: s.client };
            anyEvent = true;
          } else if (s.kind === 'answer' && turn) {
            const outcome = { outcome: 'selected', optionId: s.allow ? 'allow_once' : 'reject_once' };
            const res = await daemon.http
              .post(`/session/${sessionId}/permission/${turn.requestId}`)
              .set(headers(s.client))
              .send({ outcome });
            deliveredTo(s.client, res.text, 'answer');
            // Under designated, only the originator's answer is taken.
            expect(res.status).toBe(s.client === turn.originator ? 200 : 403);
            if (res.status === 200) turn = (turn.scripted.finish(), undefined);
          } else if (s.kind === 'read') {
            const surface = SURFACES[s.surface]!;
            const path = surface === 'exact' ? (turn ? `turns/${turn.promptId}` : 'turns/current') : surface;
            const res = await daemon.http.get(`/session/${sessionId}/${path}`).set(headers(s.client)).expect(200);
            deliveredTo(s.client, res.text, surface);
          } else if (s.kind === 'replay' && anyEvent) {
            deliveredTo(s.client, await replay(`${daemon.url}/session/${sessionId}/events`, headers(s.client)), 'replay');
          } else if (s.kind === 'finish' && turn) {
            turn = (turn.scripted.finish(), undefined);
          }
        }
        turn?.scripted.finish();
        await daemon.http.delete(`/session/${sessionId}`).expect(204);
      }),
      { numRuns: 15 },
    );
  }, 120_000);
});

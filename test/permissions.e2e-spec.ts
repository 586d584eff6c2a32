import { Logger } from '@nestjs/common';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AcpEngine } from '../src/acp/acp.engine.js';
import { OwnerWriteFence } from '../src/sessions/session-write-fence.js';
import { SessionRegistry } from '../src/sessions/session-registry.js';
import { ChatRecordingService } from '../src/transcript/chat-recording.service.js';
import { compileSources } from './support/compiled.js';
import { startDaemonProcess } from './support/daemon-process.js';
import type { DaemonConfig } from '../src/daemon/daemon-config.js';
import { deferred } from './support/deferred.js';
import { eventually } from './support/eventually.js';
import { sampleValue } from './support/prometheus.js';
import { WebhookReceiver } from './support/webhook-receiver.js';
import { verifyTurnWebhook } from '../src/webhooks/turn-webhook-signature.js';
import { waitForTurn } from './support/poll.js';
import { ADAPTERS, startDaemon, tempDir, type Adapter, type TestDaemon } from './support/test-daemon.js';

const FIXTURE = `node ${join(__dirname, 'fixtures', 'acp-fixture-agent.mjs')}`;
const ALLOW = { outcome: { outcome: 'selected', optionId: 'proceed_once' } };
const REJECT = { outcome: { outcome: 'selected', optionId: 'reject' } };

/** A daemon whose agent is the ACP fixture: `shell` asks permission, and writes marker.txt only once allowed. */
async function acpDaemon(httpAdapter: Adapter, config: Partial<DaemonConfig> = {}): Promise<TestDaemon> {
  return startDaemon({ agent: 'acp', agentCommand: FIXTURE, httpAdapter, ...config }, { engine: new AcpEngine(FIXTURE) });
}

const markerOf = (daemon: TestDaemon) => join(daemon.config.workspaces[0]!, 'marker.txt');
const outcomesLogOf = (daemon: TestDaemon) => join(daemon.config.workspaces[0]!, 'permission-outcomes.log');
/** Each answer the fixture agent got, in order (its option id, or `cancelled`). */
const outcomesOf = (daemon: TestDaemon): string[] =>
  existsSync(outcomesLogOf(daemon)) ? readFileSync(outcomesLogOf(daemon), 'utf8').split('\n').filter(Boolean) : [];
/**
 * The answers the agent got by the time it ran one more prompt of `sessionId`: its messages arrive in
 * order, so an answer sent before that prompt ran is in the log, and a second one would be too.
 */
async function outcomesAfterNextTurn(daemon: TestDaemon, sessionId: string): Promise<string[]> {
  const next = await daemon.prompt(sessionId, 'hello');
  expect(await settled(daemon, sessionId, next)).toMatchObject({ state: 'completed', resultText: 'fixture: hello' });
  return outcomesOf(daemon);
}
const settled = (daemon: TestDaemon, sessionId: string, promptId: string) => waitForTurn(daemon, sessionId, promptId, 20_000, 20);

/** The lines a Nest logger of `context` writes at `level`, captured until restored. */
function captureLog(context: string, level: 'log' | 'warn') {
  const lines: string[] = [];
  const spy = jest.spyOn(Logger.prototype, level).mockImplementation(function (this: Logger, message: unknown, ..._rest: unknown[]) {
    if ((this as unknown as { context?: string }).context === context) lines.push(String(message));
  });
  return { lines, restore: () => spy.mockRestore() };
}

/** The running turn once it waits on a request for approval. */
async function held(daemon: TestDaemon, sessionId: string, promptId: string) {
  return eventually(
    async () => {
      const res = await daemon.http.get(`/session/${sessionId}/turns/${promptId}`);
      return res.body.pendingInteractions ? res : undefined;
    },
    20_000,
    20,
  );
}

describe.each(ADAPTERS)('tool approval over %s (docs/permissions.md)', (httpAdapter) => {
  describe('policy ask (the default)', () => {
    let daemon: TestDaemon;
    beforeAll(async () => {
      daemon = await acpDaemon(httpAdapter, { promptDeadlineMs: 600_000 });
    });
    afterAll(() => daemon.close(true));
    beforeEach(() => {
      rmSync(markerOf(daemon), { force: true });
      rmSync(outcomesLogOf(daemon), { force: true });
    });

    it('holds the turn running with the request visible to polls, status and list; runs the tool only after an allow', async () => {
      const log = captureLog('Permissions', 'log');
      const metrics = async () => (await daemon.http.get('/metrics').expect(200)).text;
      const allowedBefore = sampleValue(await metrics(), 'turns_permission_requests_total', { outcome: 'allowed', decided_by: 'client' });
      const { sessionId, clientId } = await daemon.createSession({ sessionScope: 'thread' });
      const promptId = await daemon.prompt(sessionId, 'shell now', clientId);
      const res = await held(daemon, sessionId, promptId);
      expect(sampleValue(await metrics(), 'turns_permission_requests_pending')).toBe(1);
      expect(res.body).toMatchObject({
        state: 'running',
        pendingInteractions: [
          {
            requestId: expect.stringMatching(new RegExp(`^${sessionId}\\.[0-9a-f]{16}$`)),
            kind: 'permission',
            createdAt: expect.any(String),
            action: { type: 'execute', title: 'echo ran > marker.txt', input: { command: 'echo ran > marker.txt' } },
            options: [
              { optionId: 'proceed_once', label: 'Allow once', kind: 'allow_once' },
              { optionId: 'proceed_always', label: 'Always allow', kind: 'allow_always' },
              { optionId: 'reject', label: 'Reject', kind: 'reject_once' },
            ],
          },
        ],
      });
      const [request] = res.body.pendingInteractions;
      expect((await daemon.http.get(`/session/${sessionId}/turns/current`)).body.pendingInteractions).toEqual([request]);
      expect((await daemon.http.get(`/session/${sessionId}/turns`)).body.turns[0].pendingInteractions).toEqual([request]);
      expect((await daemon.http.get(`/session/${sessionId}/status`)).body).toMatchObject({
        isWaitingForPermission: true,
        pendingInteractionCount: 1,
        pendingInteractions: [request],
      });
      expect(existsSync(markerOf(daemon))).toBe(false);

      // A held poll on the waiting status wakes when the request is answered.
      const wait = daemon.http.get(`/session/${sessionId}/turns/${promptId}?waitMs=20000`).set('If-None-Match', res.headers.etag!);
      const answered = await daemon.http
        .post(`/session/${sessionId}/permission/${request.requestId}`)
        .set('X-Qwen-Client-Id', clientId)
        .send(ALLOW);
      expect([answered.status, answered.body]).toEqual([200, {}]);
      const woken = await wait;
      expect(woken.status).toBe(200);
      expect(woken.body.pendingInteractions).toBeUndefined();
      expect(woken.headers.etag).not.toBe(res.headers.etag);

      expect(await settled(daemon, sessionId, promptId)).toMatchObject({ state: 'completed', resultText: 'ran (proceed_once)' });
      expect(existsSync(markerOf(daemon))).toBe(true);
      const scraped = await metrics();
      expect(sampleValue(scraped, 'turns_permission_requests_pending')).toBe(0);
      expect(sampleValue(scraped, 'turns_permission_requests_total', { outcome: 'allowed', decided_by: 'client' })).toBe(allowedBefore + 1);
      // The audit: the request and the decision, by id, title and the client's pseudonym; never the tool's input or the id.
      log.restore();
      const audit = log.lines.filter((line) => line.includes(request.requestId));
      const pseudonym: string = res.body.originatorClientId;
      expect(pseudonym).toMatch(/^~/);
      expect(audit).toEqual([
        `permission ${request.requestId} requested: "echo ran > marker.txt" (prompt ${promptId}, client ${pseudonym})`,
        `permission ${request.requestId} allowed (proceed_once): "echo ran > marker.txt", decided by client ${pseudonym}`,
      ]);
      expect(log.lines.join('\n')).not.toContain(clientId);
      expect(log.lines.join('\n')).not.toContain('command');
      // The first answer won: a second one is a 404, on either route.
      const again = await daemon.http.post(`/session/${sessionId}/permission/${request.requestId}`).send(REJECT);
      expect([again.status, again.body.code]).toEqual([404, 'permission_not_found']);
      expect((await daemon.http.post(`/permission/${request.requestId}`).send(ALLOW)).status).toBe(404);
      expect((await daemon.http.get(`/session/${sessionId}/status`)).body).toMatchObject({
        isWaitingForPermission: false,
        pendingInteractionCount: 0,
        pendingInteractions: [],
      });
      // The agent got the chosen option, once: the later answers reached nothing.
      expect(await outcomesAfterNextTurn(daemon, sessionId)).toEqual(['proceed_once']);
    });

    it('wakes polls held on the running status when a request appears, with If-None-Match or without', async () => {
      const signal = join(daemon.config.workspaces[0]!, `ask-${Date.now()}`);
      const { sessionId } = await daemon.createSession({ sessionScope: 'thread' });
      const promptId = await daemon.prompt(sessionId, `shell on ${signal}`);
      const running = await eventually(async () => {
        const res = await daemon.http.get(`/session/${sessionId}/turns/${promptId}`);
        return res.body.state === 'running' ? res : undefined;
      });
      expect(running.body.pendingInteractions).toBeUndefined();
      const waiters = async () => sampleValue((await daemon.http.get('/metrics').expect(200)).text, 'turns_waiters');
      const before = await waiters();
      const route = `/session/${sessionId}/turns/${promptId}?waitMs=20000`;
      // supertest sends on then()
      const changed = daemon.http
        .get(route)
        .set('If-None-Match', running.headers.etag!)
        .then((res) => res);
      const plain = daemon.http.get(route).then((res) => res);
      await eventually(async () => ((await waiters()) === before + 2 ? true : undefined));
      writeFileSync(signal, ''); // the agent asks now, while both polls are held
      for (const woken of await Promise.all([changed, plain])) {
        expect(woken.status).toBe(200);
        expect(woken.headers.etag).not.toBe(running.headers.etag);
        expect(woken.body).toMatchObject({ state: 'running', pendingInteractions: [{ action: { title: 'echo ran > marker.txt' } }] });
      }
      const [request] = (await plain).body.pendingInteractions;
      // While it waits, a poll without If-None-Match is answered at once: only a client's answer moves the turn on.
      expect((await daemon.http.get(route)).body.pendingInteractions).toEqual([request]);
      await daemon.http.post(`/permission/${request.requestId}`).send(REJECT).expect(200);
      expect(await settled(daemon, sessionId, promptId)).toMatchObject({ state: 'completed', resultText: 'refused' });
      rmSync(signal, { force: true });
    });

    it('takes one of two answers sent at once (one on each route): one 200, one 404, and the agent got one', async () => {
      const { sessionId } = await daemon.createSession({ sessionScope: 'thread' });
      const promptId = await daemon.prompt(sessionId, 'shell now');
      const [request] = (await held(daemon, sessionId, promptId)).body.pendingInteractions;
      // supertest sends on then(): both are on the wire before either is answered
      const answers = await Promise.all([
        daemon.http
          .post(`/session/${sessionId}/permission/${request.requestId}`)
          .send(ALLOW)
          .then((res) => res),
        daemon.http
          .post(`/permission/${request.requestId}`)
          .send(REJECT)
          .then((res) => res),
      ]);
      expect(answers.map((res) => res.status).sort()).toEqual([200, 404]);
      expect(answers.find((res) => res.status === 404)!.body.code).toBe('permission_not_found');
      const won = answers[0]!.status === 200 ? 'proceed_once' : 'reject';
      expect(await settled(daemon, sessionId, promptId)).toMatchObject({
        state: 'completed',
        resultText: won === 'reject' ? 'refused' : 'ran (proceed_once)',
      });
      expect(await outcomesAfterNextTurn(daemon, sessionId)).toEqual([won]);
    });

    it('never runs the tool after a reject (answered on the peer’s unscoped route)', async () => {
      const { sessionId } = await daemon.createSession({ sessionScope: 'thread' });
      const promptId = await daemon.prompt(sessionId, 'shell now');
      const [request] = (await held(daemon, sessionId, promptId)).body.pendingInteractions;
      await daemon.http.post(`/permission/${request.requestId}`).send(REJECT).expect(200, {});
      expect(await settled(daemon, sessionId, promptId)).toMatchObject({ state: 'completed', resultText: 'refused' });
      expect(existsSync(markerOf(daemon))).toBe(false);
      expect(await outcomesAfterNextTurn(daemon, sessionId)).toEqual(['reject']);
    });

    it('never runs the tool after a cancelled answer', async () => {
      const { sessionId } = await daemon.createSession({ sessionScope: 'thread' });
      const promptId = await daemon.prompt(sessionId, 'shell now');
      const [request] = (await held(daemon, sessionId, promptId)).body.pendingInteractions;
      await daemon.http
        .post(`/session/${sessionId}/permission/${request.requestId}`)
        .send({ outcome: { outcome: 'cancelled' } })
        .expect(200);
      expect(await settled(daemon, sessionId, promptId)).toMatchObject({ state: 'cancelled' });
      expect(existsSync(markerOf(daemon))).toBe(false);
      expect(await outcomesAfterNextTurn(daemon, sessionId)).toEqual(['cancelled']);
    });

    it('answers the agent cancelled when the turn is cancelled: nothing stays pending, the tool never runs', async () => {
      const { sessionId } = await daemon.createSession({ sessionScope: 'thread' });
      const promptId = await daemon.prompt(sessionId, 'shell now');
      const [request] = (await held(daemon, sessionId, promptId)).body.pendingInteractions;
      await daemon.http.post(`/session/${sessionId}/cancel`).expect(204);
      expect(await settled(daemon, sessionId, promptId)).toMatchObject({ state: 'cancelled', stopReason: 'cancelled' });
      expect((await daemon.http.post(`/session/${sessionId}/permission/${request.requestId}`).send(ALLOW)).status).toBe(404);
      expect((await daemon.http.get(`/session/${sessionId}/status`)).body.pendingInteractionCount).toBe(0);
      expect(existsSync(markerOf(daemon))).toBe(false);
      expect(await outcomesAfterNextTurn(daemon, sessionId)).toEqual(['cancelled']);
    });

    it('answers the agent cancelled when the running prompt is removed', async () => {
      const { sessionId } = await daemon.createSession({ sessionScope: 'thread' });
      const promptId = await daemon.prompt(sessionId, 'shell now');
      const [request] = (await held(daemon, sessionId, promptId)).body.pendingInteractions;
      await daemon.http.delete(`/session/${sessionId}/pending-prompts/${promptId}`).expect(200, { removed: true });
      expect(await settled(daemon, sessionId, promptId)).toMatchObject({ state: 'cancelled' });
      expect((await daemon.http.post(`/permission/${request.requestId}`).send(ALLOW)).status).toBe(404);
      expect(await outcomesAfterNextTurn(daemon, sessionId)).toEqual(['cancelled']);
      expect(existsSync(markerOf(daemon))).toBe(false);
    });

    it('answers the agent cancelled at the prompt’s deadline', async () => {
      const { sessionId } = await daemon.createSession({ sessionScope: 'thread' });
      // The agent is started first, so the deadline runs out while the request waits, not while the agent starts.
      await settled(daemon, sessionId, await daemon.prompt(sessionId, 'warm up'));
      const promptId = await daemon.prompt(sessionId, 'shell now', undefined, { deadlineMs: 1_500 });
      const [request] = (await held(daemon, sessionId, promptId)).body.pendingInteractions;
      const ended = await settled(daemon, sessionId, promptId);
      expect(['error', 'cancelled']).toContain(ended.state);
      expect((await daemon.http.post(`/session/${sessionId}/permission/${request.requestId}`).send(ALLOW)).status).toBe(404);
      // The agent got `cancelled` and ended its turn: the next prompt runs.
      expect(await outcomesAfterNextTurn(daemon, sessionId)).toEqual(['cancelled']);
      expect(existsSync(markerOf(daemon))).toBe(false);
    });

    it('answers the agent cancelled when the session closes', async () => {
      const { sessionId } = await daemon.createSession({ sessionScope: 'thread' });
      const promptId = await daemon.prompt(sessionId, 'shell now');
      const [request] = (await held(daemon, sessionId, promptId)).body.pendingInteractions;
      await daemon.http.delete(`/session/${sessionId}`).expect(204);
      const late = await daemon.http.post(`/permission/${request.requestId}`).send(ALLOW);
      expect([late.status, late.body.code]).toEqual([404, 'permission_not_found']);
      expect(existsSync(markerOf(daemon))).toBe(false);
      // The agent was told before its session went: no next turn to wait for, so read until it shows.
      expect(await eventually(() => (outcomesOf(daemon).length ? outcomesOf(daemon) : undefined))).toEqual(['cancelled']);
    });

    it('refuses an option not offered, a malformed body, a stranger, and another session’s route — and still waits', async () => {
      const { sessionId } = await daemon.createSession({ sessionScope: 'thread' });
      const other = await daemon.createSession({ sessionScope: 'thread' });
      const promptId = await daemon.prompt(sessionId, 'shell now');
      const [request] = (await held(daemon, sessionId, promptId)).body.pendingInteractions;
      const route = `/session/${sessionId}/permission/${request.requestId}`;
      const notOffered = await daemon.http.post(route).send({ outcome: { outcome: 'selected', optionId: 'yolo' } });
      expect([notOffered.status, notOffered.body]).toEqual([
        400,
        expect.objectContaining({ code: 'permission_option_not_offered', requestId: request.requestId, optionId: 'yolo' }),
      ]);
      for (const body of [{}, { outcome: 'allow' }, { outcome: { outcome: 'selected' } }, { outcome: { outcome: 'maybe' } }]) {
        const bad = await daemon.http.post(route).send(body);
        expect([bad.status, bad.body.code]).toEqual([400, 'invalid_request']);
      }
      const stranger = await daemon.http.post(route).set('X-Qwen-Client-Id', other.clientId).send(ALLOW);
      expect([stranger.status, stranger.body.code]).toEqual([400, 'invalid_client_id']);
      const strangerUnscoped = await daemon.http
        .post(`/permission/${request.requestId}`)
        .set('X-Qwen-Client-Id', other.clientId)
        .send(ALLOW);
      expect([strangerUnscoped.status, strangerUnscoped.body.code]).toEqual([400, 'invalid_client_id']);
      const elsewhere = await daemon.http.post(`/session/${other.sessionId}/permission/${request.requestId}`).send(ALLOW);
      expect([elsewhere.status, elsewhere.body.code]).toEqual([404, 'permission_not_found']);
      expect((await daemon.http.post('/permission/not-a-request').send(ALLOW)).body.code).toBe('permission_not_found');
      expect((await daemon.http.get(`/session/${sessionId}/turns/${promptId}`)).body.pendingInteractions).toEqual([request]);
      expect(existsSync(markerOf(daemon))).toBe(false);
      await daemon.http.post(route).send(REJECT).expect(200);
      await settled(daemon, sessionId, promptId);
    });

    it('bounds a large tool input: dropped, marked truncated', async () => {
      const { sessionId } = await daemon.createSession({ sessionScope: 'thread' });
      const promptId = await daemon.prompt(sessionId, 'shell big');
      const [request] = (await held(daemon, sessionId, promptId)).body.pendingInteractions;
      expect(request.truncated).toBe(true);
      expect(request.action.input).toBeUndefined();
      expect(Buffer.byteLength(JSON.stringify(request))).toBeLessThanOrEqual(16 * 1024);
      await daemon.http.post(`/permission/${request.requestId}`).send(REJECT).expect(200);
      await settled(daemon, sessionId, promptId);
    });
  });

  describe('a session being torn down (the testing kit’s scripted engine)', () => {
    let daemon: TestDaemon;
    beforeAll(async () => {
      daemon = await startDaemon({ httpAdapter, promptDeadlineMs: 600_000 });
    });
    afterAll(() => daemon.close(true));

    it('takes no answer, on either route, between leaving the registry and the close that cancels its request', async () => {
      const { sessionId, clientId } = await daemon.createSession({ sessionScope: 'thread' });
      const stranger = await daemon.createSession({ sessionScope: 'thread' });
      await daemon.prompt(sessionId, 'shell', clientId);
      const turn = await daemon.engine.nextTurn();
      const decision = turn.askPermission('rm -rf build');
      const [request] = (await daemon.http.get(`/session/${sessionId}/status`).expect(200)).body.pendingInteractions;
      await daemon.app.get(ChatRecordingService).flush(sessionId);

      // The teardown waits for the admission of a second prompt, whose ledger record's write is held here.
      const write = deferred<boolean>();
      const writing = deferred<void>();
      const fence = daemon.app.get(OwnerWriteFence);
      const mayWrite = fence.mayWrite.bind(fence);
      const holding = jest.spyOn(fence, 'mayWrite').mockImplementation((id) => {
        if (id !== sessionId) return mayWrite(id);
        writing.resolve();
        return write.promise;
      });
      const registry = daemon.app.get(SessionRegistry);
      const remove = registry.remove.bind(registry);
      const left = deferred<void>();
      const removal = jest.spyOn(registry, 'remove').mockImplementation((id) => {
        remove(id);
        if (id === sessionId) left.resolve();
      });
      try {
        const second = daemon.http
          .post(`/session/${sessionId}/prompt`)
          .send({ prompt: [{ type: 'text', text: 'second' }] })
          .then((res) => res);
        await writing.promise;
        const closing = daemon.http.delete(`/session/${sessionId}`).then((res) => res);
        await left.promise;

        // Out of the registry, its request not yet cancelled: a stranger, an anonymous caller and the originator are all refused.
        for (const who of [{ 'X-Qwen-Client-Id': stranger.clientId }, {}, { 'X-Qwen-Client-Id': clientId }]) {
          const unscoped = await daemon.http
            .post(`/permission/${request.requestId}`)
            .set(who)
            .send({ outcome: { outcome: 'selected', optionId: 'allow_once' } });
          expect([unscoped.status, unscoped.body.code]).toEqual([404, 'permission_not_found']);
          const scoped = await daemon.http
            .post(`/session/${sessionId}/permission/${request.requestId}`)
            .set(who)
            .send({ outcome: { outcome: 'selected', optionId: 'allow_once' } });
          expect([scoped.status, scoped.body.code]).toEqual([404, 'session_not_found']);
        }

        write.resolve(true);
        expect((await closing).status).toBe(204);
        expect(await decision).toEqual({ outcome: 'cancelled' });
        await second;
      } finally {
        write.resolve(true); // a failed assertion must not leave the teardown (and the daemon's close) held
        holding.mockRestore();
        removal.mockRestore();
      }
    });
  });

  describe('a daemon that shuts down', () => {
    it('answers the agent cancelled before it stops: nothing stays pending, the tool never runs', async () => {
      const daemon = await acpDaemon(httpAdapter);
      try {
        const { sessionId } = await daemon.createSession({ sessionScope: 'thread' });
        const promptId = await daemon.prompt(sessionId, 'shell now');
        await held(daemon, sessionId, promptId);
        await daemon.close();
        expect(await eventually(() => (outcomesOf(daemon).length ? outcomesOf(daemon) : undefined))).toEqual(['cancelled']);
        expect(existsSync(markerOf(daemon))).toBe(false);
      } finally {
        rmSync(daemon.config.workspaces[0]!, { recursive: true, force: true });
      }
    });
  });

  describe('the webhook turn.permission_requested', () => {
    let daemon: TestDaemon;
    let hook: WebhookReceiver;
    let all: WebhookReceiver;
    beforeAll(async () => {
      daemon = await acpDaemon(httpAdapter, { webhookAllow: ['127.0.0.1'] });
      [hook, all] = await Promise.all([WebhookReceiver.start(), WebhookReceiver.start()]);
    });
    afterAll(async () => {
      await daemon.close(true);
      await Promise.all([hook.close(), all.close()]);
    });

    it('goes to the subscriptions that named it (not turn.*), signed, and its receiver can answer over REST', async () => {
      const { sessionId } = await daemon.createSession();
      const named = await daemon.http
        .post(`/session/${sessionId}/webhooks`)
        .send({ url: hook.url, events: ['turn.permission_requested', 'turn.completed'] })
        .expect(201);
      expect(named.body.events).toEqual(['turn.completed', 'turn.permission_requested']);
      const wildcard = await daemon.http
        .post(`/session/${sessionId}/webhooks`)
        .send({ url: all.url, events: ['turn.*'] })
        .expect(201);
      expect(wildcard.body.events).not.toContain('turn.permission_requested');
      const promptId = await daemon.prompt(sessionId, 'shell now');
      const request = await hook.next();
      const event = verifyTurnWebhook(named.body.secret, request.body, request.headers);
      expect(event).toMatchObject({
        type: 'turn.permission_requested',
        requestId: expect.any(String),
        data: { sessionId, promptId, state: 'running', pendingInteractions: [{ action: { title: 'echo ran > marker.txt' } }] },
      });
      // The type narrows the event: a receiver reads the request id off it.
      const requestId = event.type === 'turn.permission_requested' ? event.requestId : '';
      await daemon.http.post(`/session/${sessionId}/permission/${requestId}`).send(ALLOW).expect(200);
      expect(await settled(daemon, sessionId, promptId)).toMatchObject({ state: 'completed', resultText: 'ran (proceed_once)' });
      expect(JSON.parse((await hook.next()).body)).toMatchObject({ type: 'turn.completed', data: { promptId } });
      const types = all.requests.map((r) => JSON.parse(r.body).type as string);
      expect(types).not.toContain('turn.permission_requested');
    });
  });

  describe('responder designated', () => {
    let daemon: TestDaemon;
    beforeAll(async () => {
      daemon = await acpDaemon(httpAdapter, { permissionResponder: 'designated' });
    });
    afterAll(() => daemon.close(true));

    it('lets only the prompt’s originator answer (403 for another client of the session)', async () => {
      const { sessionId, clientId } = await daemon.createSession({ sessionScope: 'thread' });
      const attached = await daemon.createSession({ sessionId });
      const promptId = await daemon.prompt(sessionId, 'shell now', clientId);
      const [request] = (await held(daemon, sessionId, promptId)).body.pendingInteractions;
      const route = `/session/${sessionId}/permission/${request.requestId}`;
      const other = await daemon.http.post(route).set('X-Qwen-Client-Id', attached.clientId).send(ALLOW);
      expect([other.status, other.body]).toEqual([
        403,
        expect.objectContaining({ code: 'permission_forbidden', requestId: request.requestId, clientId: attached.clientId }),
      ]);
      expect((await daemon.http.post(route).send(ALLOW)).status).toBe(403);
      // Refused before its option is looked at: a client that may not answer learns nothing of the options.
      const guess = await daemon.http
        .post(route)
        .set('X-Qwen-Client-Id', attached.clientId)
        .send({ outcome: { outcome: 'selected', optionId: 'yolo' } });
      expect([guess.status, guess.body.code]).toEqual([403, 'permission_forbidden']);
      await daemon.http.post(route).set('X-Qwen-Client-Id', clientId).send(ALLOW).expect(200);
      expect(await settled(daemon, sessionId, promptId)).toMatchObject({ state: 'completed', resultText: 'ran (proceed_once)' });
    });
  });

  describe('a time-out', () => {
    let daemon: TestDaemon;
    beforeAll(async () => {
      // Long enough that a poll sees the request pending first, on a loaded machine.
      daemon = await acpDaemon(httpAdapter, { permissionTimeoutMs: 2_000 });
    });
    afterAll(() => daemon.close(true));

    it('refuses a request nobody answered: pending first, then decided by the time-out', async () => {
      rmSync(outcomesLogOf(daemon), { force: true });
      const metrics = async () => (await daemon.http.get('/metrics').expect(200)).text;
      const byTimeout = { outcome: 'rejected', decided_by: 'timeout' };
      const before = sampleValue(await metrics(), 'turns_permission_requests_total', byTimeout);
      const { sessionId } = await daemon.createSession();
      const promptId = await daemon.prompt(sessionId, 'shell now');
      await held(daemon, sessionId, promptId);
      expect(await settled(daemon, sessionId, promptId)).toMatchObject({ state: 'completed', resultText: 'refused' });
      expect(sampleValue(await metrics(), 'turns_permission_requests_total', byTimeout)).toBe(before + 1);
      expect(existsSync(markerOf(daemon))).toBe(false);
      expect(await outcomesAfterNextTurn(daemon, sessionId)).toEqual(['reject']);
    });
  });

  describe.each([
    ['allow', 'ran (proceed_once)', true],
    ['deny', 'refused', false],
  ] as const)('policy %s', (permissionPolicy, resultText, ran) => {
    let daemon: TestDaemon;
    let warnings: string[];
    beforeAll(async () => {
      const log = captureLog('Permissions', 'warn');
      daemon = await acpDaemon(httpAdapter, { permissionPolicy });
      log.restore();
      warnings = log.lines;
    });
    afterAll(() => daemon.close(true));

    it(permissionPolicy === 'allow' ? 'warns at start that every tool call is approved unseen' : 'starts without a warning', () => {
      expect(warnings).toEqual(permissionPolicy === 'allow' ? [expect.stringContaining('every tool call')] : []);
    });

    it('decides at once, with nothing pending', async () => {
      const { sessionId } = await daemon.createSession();
      const promptId = await daemon.prompt(sessionId, 'shell now');
      expect(await settled(daemon, sessionId, promptId)).toMatchObject({ state: 'completed', resultText });
      expect(existsSync(markerOf(daemon))).toBe(ran);
    });
  });
});

/** A crash: the request is lost with its prompt, which the next owner settles `daemon_lost` (docs/ledger.md). */
describe('tool approval across kill -9 (daemon processes)', () => {
  jest.setTimeout(120_000);
  let bin: string;
  beforeAll(() => {
    bin = join(compileSources('permissions'), 'daemon', 'bin.js');
  });

  it.each(ADAPTERS)('loses a pending request with its prompt: daemon_lost at load, and the tool never ran (%s)', async (adapter) => {
    const dataDir = tempDir('turns-permission-crash-');
    const env = {
      TURNS_DATA_DIR: dataDir,
      TURNS_WORKSPACES: dataDir,
      TURNS_HTTP_ADAPTER: adapter,
      TURNS_AGENT: 'acp',
      TURNS_AGENT_COMMAND: FIXTURE,
    };
    const first = await startDaemonProcess(bin, env);
    try {
      const post = (url: string, body: unknown) =>
        fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const { sessionId } = (await (await post(`${first.url}/session`, {})).json()) as { sessionId: string };
      const admitted = await post(`${first.url}/session/${sessionId}/prompt`, { prompt: [{ type: 'text', text: 'shell now' }] });
      const { promptId } = (await admitted.json()) as { promptId: string };
      const requestId = await eventually(async () => {
        const turn = (await (await fetch(`${first.url}/session/${sessionId}/turns/${promptId}`)).json()) as {
          pendingInteractions?: { requestId: string }[];
        };
        return turn.pendingInteractions?.[0]?.requestId;
      }, 20_000);
      first.child.kill('SIGKILL');
      await first.exited;

      const second = await startDaemonProcess(bin, env);
      try {
        await post(`${second.url}/session/${sessionId}/load`, {});
        const turn = await fetch(`${second.url}/session/${sessionId}/turns/${promptId}`);
        expect(await turn.json()).toMatchObject({ state: 'error', error: { code: 'daemon_lost' } });
        const late = await post(`${second.url}/permission/${requestId}`, ALLOW);
        expect([late.status, ((await late.json()) as { code: string }).code]).toEqual([404, 'permission_not_found']);
        expect(existsSync(join(dataDir, 'marker.txt'))).toBe(false);
      } finally {
        second.child.kill('SIGKILL');
        await second.exited;
      }
    } finally {
      if (first.child.exitCode === null && first.child.signalCode === null) first.child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

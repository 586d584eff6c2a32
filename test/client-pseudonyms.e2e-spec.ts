import { Logger } from '@nestjs/common';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { get, type ClientRequest } from 'node:http';
import { join } from 'node:path';
import { AcpEngine } from '../src/acp/acp.engine.js';
import type { DaemonConfig } from '../src/daemon/daemon-config.js';
import { eventually } from './support/eventually.js';
import { waitForTurn } from './support/poll.js';
import { ADAPTERS, startDaemon, type Adapter, type TestDaemon } from './support/test-daemon.js';
import { WebhookReceiver } from './support/webhook-receiver.js';

const FIXTURE = `node ${join(__dirname, 'fixtures', 'acp-fixture-agent.mjs')}`;
const ALLOW = { outcome: { outcome: 'selected', optionId: 'proceed_once' } };
const REJECT = { outcome: { outcome: 'selected', optionId: 'reject' } };
const PSEUDONYM = /^~[A-Za-z0-9_-]{16}$/;

/** A daemon whose agent is the ACP fixture (`shell` asks permission, and writes marker.txt only once allowed), under `designated`. */
function designatedDaemon(httpAdapter: Adapter, config: Partial<DaemonConfig> = {}): Promise<TestDaemon> {
  const base: Partial<DaemonConfig> = { agent: 'acp', agentCommand: FIXTURE, httpAdapter, permissionResponder: 'designated' };
  return startDaemon({ ...base, promptDeadlineMs: 600_000, webhookAllow: ['127.0.0.1'], ...config }, { engine: new AcpEngine(FIXTURE) });
}

const markerOf = (daemon: TestDaemon) => join(daemon.config.workspaces[0]!, 'marker.txt');
const outcomesOf = (daemon: TestDaemon): string[] => {
  const file = join(daemon.config.workspaces[0]!, 'permission-outcomes.log');
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
};

/** An SSE stream read as raw text, every byte of it, until `close()`. */
function openStream(url: string, headers: Record<string, string>) {
  let text = '';
  const listeners = new Set<() => void>();
  let request!: ClientRequest;
  const opened = new Promise<void>((resolve, reject) => {
    request = get(url, { headers }, (res) => {
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        for (const listener of listeners) listener();
      });
      resolve();
    });
    request.on('error', (error) => {
      if ((error as NodeJS.ErrnoException).code !== 'ECONNRESET') reject(error);
    });
  });
  return {
    opened,
    get text() {
      return text;
    },
    /** Resolves once the text so far contains `needle` (bounded by the test's time-out). */
    until(needle: string): Promise<void> {
      if (text.includes(needle)) return Promise.resolve();
      return new Promise((resolve) => {
        const listener = () => {
          if (!text.includes(needle)) return;
          listeners.delete(listener);
          resolve();
        };
        listeners.add(listener);
      });
    },
    close: () => request.destroy(),
  };
}

/** The `data` of every frame of `type` in a stream's raw text. */
function framesOf(text: string, type: string): Array<Record<string, unknown>> {
  return text
    .split('\n\n')
    .filter((block) => block.split('\n').includes(`event: ${type}`))
    .map(
      (block) =>
        JSON.parse(
          block
            .split('\n')
            .find((line) => line.startsWith('data: '))!
            .slice(6),
        ) as Record<string, unknown>,
    );
}

/** The lines the `Permissions` logger writes, captured until restored. */
function captureAudit() {
  const lines: string[] = [];
  const spy = jest.spyOn(Logger.prototype, 'log').mockImplementation(function (this: Logger, message: unknown) {
    if ((this as unknown as { context?: string }).context === 'Permissions') lines.push(String(message));
  });
  return { lines, restore: () => spy.mockRestore() };
}

describe.each(ADAPTERS)('client ids are capabilities, over %s (docs/security.md#client-ids-are-capabilities)', (httpAdapter) => {
  let daemon: TestDaemon;
  let hook: WebhookReceiver;
  beforeAll(async () => {
    [daemon, hook] = await Promise.all([designatedDaemon(httpAdapter), WebhookReceiver.start()]);
  });
  afterAll(async () => {
    await daemon.close(true);
    await hook.close();
  });
  beforeEach(() => rmSync(markerOf(daemon), { force: true }));

  it("a second client reads every surface and never sees the originator's id; neither its answer nor the pseudonym is taken", async () => {
    const audit = captureAudit();
    const { sessionId, clientId: originator } = await daemon.createSession();
    // The second client attaches to the same session, as anyone on the daemon may.
    const attached = await daemon.http.post('/session').send({}).expect(200);
    expect([attached.body.sessionId, attached.body.attached]).toEqual([sessionId, true]);
    const second: string = attached.body.clientId;
    const as = (clientId?: string): Record<string, string> => (clientId === undefined ? {} : { 'X-Qwen-Client-Id': clientId });
    const webhook = await daemon.http
      .post(`/session/${sessionId}/webhooks`)
      .set(as(second))
      .send({ url: hook.url, events: ['turn.*', 'turn.permission_requested'] })
      .expect(201);
    expect(webhook.body.webhookId).toEqual(expect.any(String));
    const streams = [
      openStream(`${daemon.url}/session/${sessionId}/events`, as(second)),
      openStream(`${daemon.url}/session/${sessionId}/events`, {}),
    ];
    await Promise.all(streams.map((stream) => stream.opened));

    const promptId = await daemon.prompt(sessionId, 'shell now', originator);
    const pending = await eventually(
      async () => {
        const res = await daemon.http.get(`/session/${sessionId}/turns/${promptId}`).set(as(second));
        // Settled for this test once the tool call's activity shows too (polls see activity at most once a refresh
        // interval): until the answer, nothing changes the status and its ETags again.
        return res.body.pendingInteractions && res.body.activity?.toolCalls === 1 ? res : undefined;
      },
      20_000,
      20,
    );
    const pseudonym: string = pending.body.originatorClientId;
    expect(pseudonym).toMatch(PSEUDONYM);
    const requestId: string = pending.body.pendingInteractions[0].requestId;

    // Every poll surface, as the second client and as an anonymous reader.
    for (const reader of [second, undefined]) {
      for (const path of ['turns/current', `turns/${promptId}`, 'turns', 'pending-prompts', 'status']) {
        const res = await daemon.http.get(`/session/${sessionId}/${path}`).set(as(reader)).expect(200);
        expect([path, res.text.includes(originator)]).toEqual([path, false]);
      }
      const current = await daemon.http.get(`/session/${sessionId}/turns/current`).set(as(reader));
      expect(current.body.originatorClientId).toBe(pseudonym);
      const list = await daemon.http.get(`/session/${sessionId}/turns`).set(as(reader));
      expect(list.body.turns[0].originatorClientId).toBe(pseudonym);
      const queue = await daemon.http.get(`/session/${sessionId}/pending-prompts`).set(as(reader));
      expect(queue.body.pendingPrompts).toEqual([expect.objectContaining({ promptId, originatorClientId: pseudonym })]);
    }
    // The originator, whose request carries its id, reads its own id; its ETag is of its own bytes.
    const own = await daemon.http.get(`/session/${sessionId}/turns/${promptId}`).set(as(originator));
    expect(own.body.originatorClientId).toBe(originator);
    expect(own.headers.etag).not.toBe(pending.headers.etag);
    await daemon.http
      .get(`/session/${sessionId}/turns/${promptId}`)
      .set(as(originator))
      .set('If-None-Match', own.headers.etag!)
      .expect(304);
    await daemon.http
      .get(`/session/${sessionId}/turns/${promptId}`)
      .set(as(second))
      .set('If-None-Match', pending.headers.etag!)
      .expect(304);
    expect((await daemon.http.get(`/session/${sessionId}/turns`).set(as(originator))).body.turns[0].originatorClientId).toBe(originator);

    // The webhook receiver is no client: the pseudonym.
    const bodies: string[] = [];
    while (!bodies.some((body) => body.includes('"turn.permission_requested"'))) bodies.push((await hook.next()).body);
    expect(bodies.map((body) => JSON.parse(body))).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'turn.permission_requested', data: expect.objectContaining({ originatorClientId: pseudonym }) }),
      ]),
    );
    expect(bodies.join('\n')).not.toContain(originator);

    // Impersonation: the second client's own id is refused (403), the pseudonym is no client id (400), on both answer routes.
    const route = `/session/${sessionId}/permission/${requestId}`;
    const forbidden = await daemon.http.post(route).set(as(second)).send(ALLOW);
    expect([forbidden.status, forbidden.body.code]).toEqual([403, 'permission_forbidden']);
    for (const path of [route, `/permission/${requestId}`]) {
      const posed = await daemon.http.post(path).set(as(pseudonym)).send(ALLOW);
      expect([path, posed.status, posed.body.code]).toEqual([path, 400, 'invalid_client_id']);
    }
    const anonymous = await daemon.http.post(`/permission/${requestId}`).send(ALLOW);
    expect([anonymous.status, anonymous.body.code]).toEqual([403, 'permission_forbidden']);
    // Nor anywhere else a client id is taken.
    expect((await daemon.http.get(`/session/${sessionId}/turns/current`).set(as(pseudonym))).status).toBe(400);
    expect(
      (
        await daemon.http
          .post(`/session/${sessionId}/prompt`)
          .set(as(pseudonym))
          .send({ prompt: [{ type: 'text', text: 'x' }] })
      ).status,
    ).toBe(400);
    expect(existsSync(markerOf(daemon))).toBe(false);
    expect((await daemon.http.get(`/session/${sessionId}/turns/${promptId}`)).body.pendingInteractions).toHaveLength(1);

    // Only the originator's answer is taken; it refuses, and the tool never runs.
    await daemon.http.post(route).set(as(originator)).send(REJECT).expect(200);
    expect(await waitForTurn(daemon, sessionId, promptId, 20_000, 20)).toMatchObject({ state: 'completed', resultText: 'refused' });
    expect(existsSync(markerOf(daemon))).toBe(false);
    const completed = await hook.next();
    expect(JSON.parse(completed.body)).toMatchObject({ type: 'turn.completed', data: { originatorClientId: pseudonym } });
    expect(completed.body).not.toContain(originator);

    // The live streams: the second client sees its own id (the refusal it caused), never the originator's.
    await Promise.all(streams.map((stream) => stream.until('event: turn_complete')));
    for (const stream of streams) stream.close();
    const [live, liveAnonymous] = streams.map((stream) => stream.text);
    expect(live).not.toContain(originator);
    expect(liveAnonymous).not.toContain(originator);
    expect(liveAnonymous).not.toContain(second);
    expect(framesOf(live!, 'permission_forbidden')[0]).toMatchObject({ data: { clientId: second } });
    expect(framesOf(liveAnonymous!, 'permission_forbidden')[0]).toMatchObject({ data: { clientId: expect.stringMatching(PSEUDONYM) } });
    expect(framesOf(live!, 'permission_resolved')[0]).toMatchObject({ originatorClientId: pseudonym, data: { voterClientId: pseudonym } });

    // Replayed from the ring with Last-Event-ID: 0, as each reader.
    for (const reader of [second, undefined]) {
      const replay = openStream(`${daemon.url}/session/${sessionId}/events`, { ...as(reader), 'Last-Event-ID': '0' });
      await replay.until('event: replay_complete');
      replay.close();
      expect(replay.text).toContain('event: permission_resolved');
      expect(replay.text).not.toContain(originator);
      expect(framesOf(replay.text, 'turn_complete')[0]).toMatchObject({
        originatorClientId: pseudonym,
        data: { originatorClientId: pseudonym },
      });
    }
    const ownReplay = openStream(`${daemon.url}/session/${sessionId}/events`, { ...as(originator), 'Last-Event-ID': '0' });
    await ownReplay.until('event: replay_complete');
    ownReplay.close();
    expect(framesOf(ownReplay.text, 'permission_resolved')[0]).toMatchObject({
      originatorClientId: originator,
      data: { voterClientId: originator },
    });
    expect(ownReplay.text).not.toContain(second);

    // The log and the metrics name no client id.
    audit.restore();
    expect(audit.lines.filter((line) => line.includes(requestId))).toEqual([
      expect.stringContaining(`client ${pseudonym}`),
      expect.stringContaining(`decided by client ${pseudonym}`),
    ]);
    expect(audit.lines.join('\n')).not.toContain(originator);
    expect(audit.lines.join('\n')).not.toContain(second);
    const metrics = (await daemon.http.get('/metrics').expect(200)).text;
    expect(metrics.includes(originator) || metrics.includes(second)).toBe(false);
  });

  it('refuses, under designated, a prompt with no client id: 400 client_id_required', async () => {
    const { sessionId } = await daemon.createSession({ sessionScope: 'thread' });
    const res = await daemon.http.post(`/session/${sessionId}/prompt`).send({ prompt: [{ type: 'text', text: 'shell now' }] });
    expect([res.status, res.body]).toEqual([400, { error: expect.any(String), code: 'client_id_required', sessionId }]);
    expect((await daemon.http.get(`/session/${sessionId}/turns/current`)).body).toEqual({ sessionId, state: 'idle' });
  });

  it("answers cancelled at once the pending request of an originator that detaches: the peer's events, and the agent gets cancelled", async () => {
    const { sessionId, clientId } = await daemon.createSession({ sessionScope: 'thread' });
    const stream = openStream(`${daemon.url}/session/${sessionId}/events`, {});
    await stream.opened;
    const before = outcomesOf(daemon).length;
    const promptId = await daemon.prompt(sessionId, 'shell now', clientId);
    await stream.until('event: permission_request');
    await daemon.http.post(`/session/${sessionId}/detach`).set('X-Qwen-Client-Id', clientId).expect(204);
    expect(await waitForTurn(daemon, sessionId, promptId, 20_000, 20)).toMatchObject({ state: 'cancelled' });
    await stream.until('event: turn_complete');
    stream.close();
    expect(framesOf(stream.text, 'permission_resolved')).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ outcome: { outcome: 'cancelled' } }) }),
    ]);
    expect(outcomesOf(daemon).slice(before)).toEqual(['cancelled']);
    expect(existsSync(markerOf(daemon))).toBe(false);
    expect((await daemon.http.get(`/session/${sessionId}/status`)).body).toMatchObject({ pendingInteractionCount: 0 });
  });
});

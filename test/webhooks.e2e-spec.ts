import { Webhook } from 'standardwebhooks';
import { verifyTurnWebhook } from '../src/webhooks/turn-webhook-signature.js';
import type { ResolvedAddress } from '../src/webhooks/host-resolver.js';
import type { DaemonConfig } from '../src/daemon/daemon-config.js';
import { pollTurn } from './support/poll.js';
import { ADAPTERS, startDaemon, tempDir, type TestDaemon } from './support/test-daemon.js';
import { answering, WebhookReceiver, type ReceivedWebhook } from './support/webhook-receiver.js';

const LOOPBACK = ['127.0.0.1'];
type DeliveryRow = { state?: string; lastStatus?: number; lastError?: string; attempts?: number; nextAttemptAt: number };

describe.each(ADAPTERS)('turn webhooks (%s)', (httpAdapter) => {
  let daemon: TestDaemon;
  const receivers: WebhookReceiver[] = [];
  /** What the test DNS answers for names under `.test`. */
  const dns = new Map<string, ResolvedAddress[]>();

  async function start(config: Partial<DaemonConfig> = {}): Promise<TestDaemon> {
    daemon = await startDaemon(
      { httpAdapter, webhookAllow: LOOPBACK, webhookRetryBaseMs: 20, ...config },
      {
        webhookResolver: async (host) => {
          const answer = dns.get(host);
          if (!answer) throw new Error('ENOTFOUND');
          return answer;
        },
      },
    );
    return daemon;
  }
  async function receiver(answer?: Parameters<typeof WebhookReceiver.start>[0]): Promise<WebhookReceiver> {
    const started = await WebhookReceiver.start(answer);
    receivers.push(started);
    return started;
  }
  const subscribe = (sessionId: string, body: Record<string, unknown>) => daemon.http.post(`/session/${sessionId}/webhooks`).send(body);
  const deliveries = async (sessionId: string, webhookId: string) =>
    (await daemon.http.get(`/session/${sessionId}/webhooks/${webhookId}/deliveries`).expect(200)).body.deliveries;
  async function completed(sessionId: string, text: string): Promise<string> {
    const promptId = await daemon.prompt(sessionId, text);
    const turn = await daemon.engine.nextTurn();
    turn.say(`answer to ${text}`);
    turn.finish();
    return promptId;
  }
  const event = (request: ReceivedWebhook) => JSON.parse(request.body);

  afterEach(async () => {
    await daemon?.close(true);
    await Promise.all(receivers.splice(0).map((r) => r.close()));
    dns.clear();
  });

  it('subscribes (secret once, never listed) and delivers turn.completed with the exact poll body, signed and with the token', async () => {
    await start();
    const hook = await receiver();
    const { sessionId } = await daemon.createSession();
    const created = await subscribe(sessionId, { url: hook.url, token: 'tok-123' }).expect(201);
    expect(created.body).toEqual({
      webhookId: expect.stringMatching(/^wh_/),
      url: hook.url,
      events: ['turn.completed', 'turn.cancelled', 'turn.error'],
      createdAt: expect.any(Number),
      hasToken: true,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    const listed = (await daemon.http.get(`/session/${sessionId}/webhooks`).expect(200)).body;
    expect(listed).toEqual({ webhooks: [{ ...created.body, secret: undefined }] });
    expect(JSON.stringify(listed)).not.toContain('tok-123');
    expect(JSON.stringify(listed)).not.toContain(created.body.secret);

    const promptId = await completed(sessionId, 'hello');
    const request = await hook.next();
    expect(request.headers.authorization).toBe('Bearer tok-123');
    expect(request.headers['content-type']).toBe('application/json');
    const verified = new Webhook(created.body.secret).verify(request.body, request.headers as Record<string, string>);
    expect(verifyTurnWebhook(created.body.secret, request.body, request.headers)).toEqual(verified);
    expect(() => verifyTurnWebhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`, request.body, request.headers)).toThrow();
    const poll = (await daemon.http.get(`/session/${sessionId}/turns/${promptId}`).expect(200)).body;
    expect(verified).toEqual({ type: 'turn.completed', timestamp: expect.any(Number), data: poll });
    expect(poll).toMatchObject({ state: 'completed', resultText: 'answer to hello', sessionId });
    // Delivered once the daemon has read the 2xx (just after the receiver answered).
    expect(await pollLog(sessionId, created.body.webhookId, (rows) => rows[0]?.state === 'delivered')).toEqual([
      { deliveryId: request.headers['webhook-id'], type: 'turn.completed', promptId, attempts: 1, state: 'delivered', lastStatus: 200 },
    ]);
  });

  it('sends turn.started too for turn.*, and a queued prompt removed gets its turn.cancelled', async () => {
    await start();
    const hook = await receiver();
    const { sessionId } = await daemon.createSession();
    await subscribe(sessionId, { url: hook.url, events: ['turn.*'] }).expect(201);
    const first = await daemon.prompt(sessionId, 'running');
    const turn = await daemon.engine.nextTurn();
    const started = event(await hook.next());
    expect(started).toMatchObject({ type: 'turn.started', data: { promptId: first, state: 'running', startedAt: expect.any(Number) } });
    const queued = await daemon.prompt(sessionId, 'queued');
    await daemon.http.delete(`/session/${sessionId}/pending-prompts/${queued}`).expect(200);
    const cancelled = event(await hook.next());
    expect(cancelled).toMatchObject({ type: 'turn.cancelled', data: { promptId: queued, state: 'cancelled' } });
    expect(cancelled.data).toEqual((await daemon.http.get(`/session/${sessionId}/turns/${queued}`)).body);
    turn.finish();
    expect(event(await hook.next())).toMatchObject({ type: 'turn.completed', data: { promptId: first } });
  });

  it('counts attempts by outcome and the outbox in /metrics, and pending and failing deliveries in /daemon/status', async () => {
    // A retry an hour away: the failed delivery stays pending while the test looks.
    await start({ webhookRetryBaseMs: 3_600_000 });
    const hook = await receiver(answering(500));
    const { sessionId } = await daemon.createSession();
    const { webhookId } = (await subscribe(sessionId, { url: hook.url }).expect(201)).body;
    await completed(sessionId, 'flaky');
    await hook.next();
    await pollLog(sessionId, webhookId, (rows) => rows[0]?.attempts === 1 && rows[0]?.lastStatus === 500);
    const metric = (text: string, name: string) => Number(new RegExp(`^${name.replace(/[{}]/g, '\\$&')} (\\d+)`, 'm').exec(text)?.[1]);
    const scraped = (await daemon.http.get('/metrics').expect(200)).text;
    expect(metric(scraped, 'turns_webhook_deliveries_total{outcome="retry"}')).toBe(1);
    expect(metric(scraped, 'turns_webhook_outbox_depth')).toBe(1);
    expect((await daemon.http.get('/daemon/status').expect(200)).body.webhooks).toEqual({ pending: 1, failing: 1 });
  });

  it('retries a receiver that answers 500 three times with the same webhook-id, then it is delivered', async () => {
    await start();
    const hook = await receiver(answering(500, 500, 500));
    const { sessionId } = await daemon.createSession();
    const { webhookId } = (await subscribe(sessionId, { url: hook.url }).expect(201)).body;
    const promptId = await completed(sessionId, 'flaky');
    const got = [await hook.next(), await hook.next(), await hook.next(), await hook.next()];
    const ids = new Set(got.map((r) => r.headers['webhook-id']));
    expect(ids.size).toBe(1);
    expect(new Set(got.map((r) => r.body)).size).toBe(1);
    const log = await pollLog(sessionId, webhookId, (rows) => rows[0]?.state === 'delivered');
    expect(log).toEqual([{ deliveryId: [...ids][0], type: 'turn.completed', promptId, attempts: 4, state: 'delivered', lastStatus: 200 }]);
    const scraped = (await daemon.http.get('/metrics').expect(200)).text;
    expect(scraped).toMatch(/^turns_webhook_deliveries_total\{outcome="retry"\} 3$/m);
    expect(scraped).toMatch(/^turns_webhook_deliveries_total\{outcome="delivered"\} 1$/m);
    expect(scraped).toMatch(/^turns_webhook_outbox_depth 0$/m);
    expect((await daemon.http.get('/daemon/status').expect(200)).body.webhooks).toEqual({ pending: 0, failing: 0 });
  });

  it('honours Retry-After on 503 (the next attempt waits for it, not for the short backoff)', async () => {
    await start({ webhookRetryBaseMs: 10 });
    const hook = await receiver(answering({ status: 503, headers: { 'Retry-After': '2' } }));
    const { sessionId } = await daemon.createSession();
    const { webhookId } = (await subscribe(sessionId, { url: hook.url }).expect(201)).body;
    await completed(sessionId, 'busy receiver');
    const first = await hook.next();
    const [row] = await pollLog(sessionId, webhookId, (rows) => rows[0]?.lastStatus === 503);
    expect(row).toMatchObject({ state: 'pending', attempts: 1, lastStatus: 503 });
    // Without Retry-After the wait would be under 10 ms (full jitter of the first step).
    expect(row.nextAttemptAt - first.receivedAt).toBeGreaterThanOrEqual(1_900);
  });

  it('disables a subscription whose receiver answers 410, and sends it nothing more', async () => {
    await start();
    const gone = await receiver(answering(410));
    const control = await receiver();
    const { sessionId } = await daemon.createSession();
    const { webhookId } = (await subscribe(sessionId, { url: gone.url }).expect(201)).body;
    await subscribe(sessionId, { url: control.url }).expect(201);
    await completed(sessionId, 'one');
    await gone.next();
    await control.next();
    const [row] = await pollLog(sessionId, webhookId, (rows) => rows[0]?.state === 'failed');
    expect(row).toMatchObject({ state: 'failed', attempts: 1, lastStatus: 410 });
    const listed = (await daemon.http.get(`/session/${sessionId}/webhooks`)).body.webhooks;
    expect(listed.find((w: { webhookId: string }) => w.webhookId === webhookId)).toMatchObject({ disabledAt: expect.any(Number) });
    await completed(sessionId, 'two');
    expect(event(await control.next())).toMatchObject({ type: 'turn.completed' });
    expect(gone.requests).toHaveLength(1);
  });

  it('does not follow a redirect', async () => {
    await start({ webhookMaxAttempts: 2 });
    const target = await receiver();
    const redirecting = await receiver(
      answering({ status: 307, headers: { Location: target.url } }, { status: 307, headers: { Location: target.url } }),
    );
    const { sessionId } = await daemon.createSession();
    const { webhookId } = (await subscribe(sessionId, { url: redirecting.url }).expect(201)).body;
    await completed(sessionId, 'moved');
    const [row] = await pollLog(sessionId, webhookId, (rows) => rows[0]?.state === 'failed');
    expect(row).toMatchObject({ state: 'failed', attempts: 2, lastStatus: 307 });
    expect(redirecting.requests).toHaveLength(2);
    expect(target.requests).toHaveLength(0);
  });

  it('sends turn.error at a deadline, then turn.completed once the persisted outcome supersedes it', async () => {
    await start({ promptDeadlineMs: 60_000 });
    const hook = await receiver();
    const { sessionId } = await daemon.createSession();
    await subscribe(sessionId, { url: hook.url }).expect(201);
    daemon.engine.honorAbort = false;
    // The deadline counts from admission, and the agent gets the prompt only once its ledger record is synced: 20 ms
    // let a slow fsync (a loaded machine) expire it before it ran, and the agent never got it. A second never does.
    const promptId = await daemon.prompt(sessionId, 'long job', undefined, { deadlineMs: 1_000 });
    const turn = await daemon.engine.nextTurn();
    const error = event(await hook.next());
    expect(error).toMatchObject({ type: 'turn.error', data: { promptId, state: 'error', error: { code: 'prompt_deadline_exceeded' } } });
    turn.say('finished late');
    turn.finish();
    const late = event(await hook.next());
    expect(late).toMatchObject({ type: 'turn.completed', data: { promptId, state: 'completed', resultText: 'finished late' } });
    expect(late.data).toEqual((await daemon.http.get(`/session/${sessionId}/turns/${promptId}`)).body);
    expect(hook.requests).toHaveLength(2);
  });

  it('refuses a forbidden URL at subscription: loopback by address or by name, IPv6 and IPv4-mapped forms, private names, other schemes', async () => {
    await start({ webhookAllow: [] });
    const { sessionId } = await daemon.createSession();
    dns.set('internal.test', [{ address: '10.0.0.7', family: 4 }]);
    dns.set('mixed.test', [
      { address: '93.184.216.34', family: 4 },
      { address: 'fd00::1', family: 6 },
    ]);
    for (const url of [
      'http://127.0.0.1:9/hooks',
      'http://[::1]:9/',
      'http://[::ffff:127.0.0.1]:9/',
      'http://[::ffff:a9fe:a9fe]/latest/meta-data',
      'http://169.254.169.254/latest/meta-data',
      'http://0.0.0.0:9/',
      'http://internal.test/hooks',
      'http://mixed.test/hooks',
      'http://unknown.test/hooks',
      'ftp://93.184.216.34/x',
      'http://user:pw@93.184.216.34/x',
      'not a url',
    ]) {
      const refused = await subscribe(sessionId, { url }).expect(400);
      expect(refused.body).toEqual({ error: expect.any(String), code: 'webhook_url_forbidden', reason: expect.any(String) });
    }
    expect((await daemon.http.get(`/session/${sessionId}/webhooks`)).body).toEqual({ webhooks: [] });
  });

  it('refuses at delivery a host that now resolves to a private address, and connects to the checked address', async () => {
    await start({ webhookAllow: ['127.0.0.1/32'] });
    const hook = await receiver();
    dns.set('receiver.test', [{ address: '127.0.0.1', family: 4 }]);
    const { sessionId } = await daemon.createSession();
    const url = `http://receiver.test:${hook.port}/hooks`;
    const { webhookId } = (await subscribe(sessionId, { url }).expect(201)).body;
    dns.set('receiver.test', [{ address: '10.0.0.7', family: 4 }]);
    await completed(sessionId, 'rebind');
    const [row] = await pollLog(sessionId, webhookId, (rows) => rows[0]?.lastError === 'webhook_url_forbidden');
    expect(row).toMatchObject({ state: 'pending', lastError: 'webhook_url_forbidden' });
    expect(hook.requests).toHaveLength(0);
    dns.set('receiver.test', [{ address: '127.0.0.1', family: 4 }]);
    const request = await hook.next();
    expect(request.headers.host).toBe(`receiver.test:${hook.port}`);
  });

  it('caps subscriptions per session (409 too_many_webhooks), deletes them (204, then 404) and validates the body', async () => {
    await start({ maxWebhooksPerSession: 2 });
    const hook = await receiver();
    const { sessionId } = await daemon.createSession();
    const a = (await subscribe(sessionId, { url: hook.url }).expect(201)).body;
    await subscribe(sessionId, { url: hook.url }).expect(201);
    const third = await subscribe(sessionId, { url: hook.url }).expect(409);
    expect(third.body).toEqual({ error: expect.any(String), code: 'too_many_webhooks', sessionId, limit: 2 });
    await daemon.http.delete(`/session/${sessionId}/webhooks/${a.webhookId}`).expect(204);
    const again = await daemon.http.delete(`/session/${sessionId}/webhooks/${a.webhookId}`).expect(404);
    expect(again.body).toMatchObject({ code: 'webhook_not_found', webhookId: a.webhookId });
    await daemon.http.get(`/session/${sessionId}/webhooks/${a.webhookId}/deliveries`).expect(404);
    await subscribe(sessionId, { url: hook.url, events: ['turn.finished'] }).expect(400);
    await subscribe(sessionId, { url: hook.url, token: 'two words' }).expect(400);
    await subscribe(sessionId, {}).expect(400);
    await daemon.http.get('/session/5c1d2a8e-7f7b-4a44-9a57-1f2e3d4c5b6a/webhooks').expect(404);
  });

  it('keeps subscriptions with the session: back after a restart and a load, not inherited by a fork', async () => {
    const dataDir = tempDir();
    await start({ dataDir });
    const hook = await receiver();
    const { sessionId } = await daemon.createSession();
    const created = (await subscribe(sessionId, { url: hook.url }).expect(201)).body;
    // A session with a turn has a transcript to be loaded from.
    await completed(sessionId, 'before restart');
    await hook.next();
    // Delivered means removed from the outbox too (else the restart sends it again: at least once).
    await pollLog(sessionId, created.webhookId, (rows) => rows[0]?.state === 'delivered');
    await daemon.close();
    await start({ dataDir });
    await daemon.http.get(`/session/${sessionId}/webhooks`).expect(404);
    await daemon.http.post(`/session/${sessionId}/load`).expect(200);
    expect((await daemon.http.get(`/session/${sessionId}/webhooks`)).body.webhooks).toEqual([{ ...created, secret: undefined }]);
    const promptId = await completed(sessionId, 'after restart');
    const request = await hook.next();
    expect(new Webhook(created.secret).verify(request.body, request.headers as Record<string, string>)).toMatchObject({
      data: { promptId },
    });
    const fork = (await daemon.http.post(`/session/${sessionId}/fork`).expect(200)).body.sessionId;
    expect((await daemon.http.get(`/session/${fork}/webhooks`)).body).toEqual({ webhooks: [] });
  });

  it('sends every session’s terminal events to the operator endpoint (TURNS_WEBHOOK_URL)', async () => {
    const operator = await receiver();
    const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    await start({ webhookUrl: operator.url, webhookSecret: secret });
    const { sessionId } = await daemon.createSession();
    const promptId = await completed(sessionId, 'for the operator');
    const request = await operator.next();
    expect(verifyTurnWebhook(secret, request.body, request.headers)).toMatchObject({
      type: 'turn.completed',
      data: { sessionId, promptId },
    });
    expect(request.headers.authorization).toBeUndefined();
    await pollTurn(daemon, sessionId, promptId);
    const caps = (await daemon.http.get('/capabilities')).body;
    expect(caps.features).toContain('turn_webhooks');
    expect(caps.limits).toMatchObject({ maxWebhooksPerSession: 8, webhookMaxAttempts: 8, webhookTimeoutMs: 10_000 });
  });

  /** Reads the delivery log until `done` holds; bounded, each round lets the dispatcher run. */
  async function pollLog(sessionId: string, webhookId: string, done: (rows: DeliveryRow[]) => boolean) {
    for (let i = 0; i < 500; i += 1) {
      const rows = await deliveries(sessionId, webhookId);
      if (done(rows)) return rows;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error('the delivery log never reached the expected state');
  }
});

import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { ADAPTERS, startDaemon, type TestDaemon } from './support/test-daemon.js';
import { eventually } from './support/eventually.js';

const TOKEN = 'ops-secret';
const auth = { Authorization: `Bearer ${TOKEN}` };

describe.each(ADAPTERS)('operating the daemon (%s)', (httpAdapter) => {
  let daemon: TestDaemon;

  beforeEach(async () => {
    daemon = await startDaemon({ httpAdapter, token: TOKEN });
  });
  afterEach(() => daemon.close(true));

  describe('GET /daemon/status', () => {
    it('is behind the token', async () => {
      await daemon.http.get('/daemon/status').expect(401, { error: 'Unauthorized', code: 'unauthorized' });
    });

    it('counts live sessions, queued and running prompts, held requests and SSE streams as they change', async () => {
      const idle = await daemon.http.get('/daemon/status').set(auth).expect(200);
      expect(idle.body).toEqual({
        v: 1,
        status: 'ok',
        version: expect.stringMatching(/^\d+\.\d+\.\d+/),
        uptimeMs: expect.any(Number),
        sessions: { live: 0 },
        prompts: { queued: 0, running: 0 },
        waiters: 0,
        sseStreams: 0,
        webhooks: { pending: 0, failing: 0 },
      });
      const { sessionId } = (await daemon.http.post('/session').set(auth).send({ sessionScope: 'thread' }).expect(200)).body;
      const admit = () =>
        daemon.http
          .post(`/session/${sessionId}/prompt`)
          .set(auth)
          .send({ prompt: [{ type: 'text', text: 'x' }] })
          .expect(202);
      const first = (await admit()).body.promptId;
      await admit();
      const turn = await daemon.engine.nextTurn();
      const held = daemon.http
        .get(`/session/${sessionId}/turns/${first}?waitMs=20000`)
        .set(auth)
        .then((r) => r);
      const events = new AbortController();
      const stream = await fetch(`${daemon.url}/session/${sessionId}/events`, { headers: auth, signal: events.signal });
      expect(stream.status).toBe(200);
      const busy = await eventually(async () => {
        const body = (await daemon.http.get('/daemon/status').set(auth).expect(200)).body;
        return body.waiters === 1 && body.sseStreams === 1 ? body : undefined;
      });
      expect(busy).toMatchObject({ sessions: { live: 1 }, prompts: { queued: 1, running: 1 }, waiters: 1, sseStreams: 1 });
      turn.finish();
      expect((await held).body).toMatchObject({ state: 'completed' });
      events.abort();
      const after = await eventually(async () => {
        const body = (await daemon.http.get('/daemon/status').set(auth).expect(200)).body;
        return body.sseStreams === 0 ? body : undefined;
      });
      expect(after).toMatchObject({ prompts: { queued: 0, running: 1 }, waiters: 0, sseStreams: 0 });
    });
  });

  describe('GET /health/ready', () => {
    it('answers 200 {status:"ok"} without the token', async () => {
      await daemon.http.get('/health/ready').expect(200, { status: 'ok' });
      await daemon.http.get('/health').expect(200, { status: 'ok' });
    });

    it('answers 503 naming only the failing check while the data dir takes no write, and 200 once it does again', async () => {
      const dataDir = daemon.config.dataDir;
      const aside = `${dataDir}.aside`;
      renameSync(dataDir, aside);
      // A file where the directory was: no write succeeds there, whoever the process runs as.
      writeFileSync(dataDir, '');
      const res = await daemon.http.get('/health/ready').expect(503);
      expect(res.body).toEqual({ error: 'Not ready', code: 'not_ready', check: 'data_dir_writable' });
      expect((await daemon.http.get('/daemon/status').set(auth).expect(200)).body.status).toBe('degraded');
      rmSync(dataDir);
      renameSync(aside, dataDir);
      await daemon.http.get('/health/ready').expect(200, { status: 'ok' });
    });
  });
});

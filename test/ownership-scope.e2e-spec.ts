import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { workspaceKey } from '../src/transcript/chat-recording.service.js';
import { eventually } from './support/eventually.js';
import { ADAPTERS, startDaemon, tempDir, type TestDaemon } from './support/test-daemon.js';
import { as, testPrincipals } from './support/test-principals.js';

/** Prompts as `principal` and lets the scripted engine finish the turn: the session then has a transcript to load. */
async function settledPrompt(daemon: TestDaemon, sessionId: string, principal: string): Promise<string> {
  const res = await daemon.http
    .post(`/session/${sessionId}/prompt`)
    .set(as(principal))
    .send({ prompt: [{ type: 'text', text: 'hi' }] });
  expect(res.status).toBe(202);
  const turn = await daemon.engine.nextTurn();
  turn.say('done');
  turn.finish();
  await eventually(async () => {
    const status = await daemon.http.get(`/session/${sessionId}/turns/${res.body.promptId}`).set(as(principal));
    return status.body.state === 'completed' ? true : undefined;
  });
  return res.body.promptId;
}

describe.each(ADAPTERS)('what a principal reaches (%s)', (httpAdapter) => {
  describe('scope', () => {
    let daemon: TestDaemon;
    beforeEach(async () => {
      daemon = await startDaemon({ httpAdapter }, { authentication: testPrincipals });
    });
    afterEach(() => daemon.close(true));

    it('attaches `single` scope to a live session of the same principal only', async () => {
      const alice = (await daemon.http.post('/session').set(as('alice')).send({}).expect(200)).body;
      expect(alice.attached).toBe(false);
      const bob = (await daemon.http.post('/session').set(as('bob')).send({}).expect(200)).body;
      expect(bob).toMatchObject({ attached: false });
      expect(bob.sessionId).not.toBe(alice.sessionId);
      const again = (await daemon.http.post('/session').set(as('alice')).send({}).expect(200)).body;
      expect(again).toMatchObject({ attached: true, sessionId: alice.sessionId });
      // An operator is a principal of its own here: it attaches to its own sessions, not to alice's.
      const root = (await daemon.http.post('/session').set(as('op:root')).send({}).expect(200)).body;
      expect(root.sessionId).not.toBe(alice.sessionId);
      // Naming another principal's session does not attach to it either.
      const named = await daemon.http.post('/session').set(as('bob')).send({ sessionId: alice.sessionId });
      expect([named.status, named.body.code]).toEqual([400, 'invalid_session_id']);
      expect(JSON.stringify(named.body)).not.toContain(alice.clientId);
    });

    it('scopes a create key to its principal: another principal sending it gets its own session', async () => {
      const key = 'predictable-key-1';
      const first = await daemon.http.post('/session').set(as('alice')).set('Idempotency-Key', key).send({ sessionScope: 'thread' });
      expect(first.status).toBe(200);
      const other = await daemon.http.post('/session').set(as('bob')).set('Idempotency-Key', key).send({ sessionScope: 'thread' });
      expect(other.status).toBe(200);
      expect(other.headers['idempotent-replayed']).toBeUndefined();
      expect(other.body.sessionId).not.toBe(first.body.sessionId);
      expect(other.body.clientId).not.toBe(first.body.clientId);
      const retry = await daemon.http.post('/session').set(as('alice')).set('Idempotency-Key', key).send({ sessionScope: 'thread' });
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(retry.body).toEqual(first.body);
    });

    it('lists no session of another principal on /daemon/status or /metrics (counts only)', async () => {
      const { sessionId } = (await daemon.http.post('/session').set(as('alice')).send({}).expect(200)).body;
      await daemon.http
        .post(`/session/${sessionId}/prompt`)
        .set(as('alice'))
        .send({ prompt: [{ type: 'text', text: 'hi' }] })
        .expect(202);
      const status = await daemon.http.get('/daemon/status').set(as('bob')).expect(200);
      expect(status.body.sessions.live).toBe(1);
      expect(JSON.stringify(status.body)).not.toContain(sessionId);
      const metrics = await daemon.http.get('/metrics').set(as('bob')).expect(200);
      expect(metrics.text).toContain('turns_');
      expect(metrics.text).not.toContain(sessionId);
    });
  });

  describe('across a restart', () => {
    it('keeps the owner of a session and of its fork: a load by another principal is not found, the owner’s loads', async () => {
      const dataDir = tempDir();
      const first = await startDaemon({ httpAdapter, dataDir }, { authentication: testPrincipals });
      const { sessionId } = (await first.http.post('/session').set(as('alice')).send({ sessionScope: 'thread' }).expect(200)).body;
      await settledPrompt(first, sessionId, 'alice');
      const fork = (await first.http.post(`/session/${sessionId}/fork`).set(as('alice')).send({}).expect(200)).body.sessionId;
      const idle = (await first.http.post('/session').set(as('alice')).send({ sessionScope: 'thread' }).expect(200)).body.sessionId;
      await settledPrompt(first, idle, 'alice');
      await first.close();
      // The record is beside the transcript, in the data dir a restarted daemon (or another node) reads.
      const chats = join(dataDir, workspaceKey(dataDir), 'chats');
      expect(JSON.parse(readFileSync(join(chats, `${sessionId}.owner.json`), 'utf8'))).toEqual({ v: 1, owner: 'alice' });
      expect(existsSync(join(chats, `${fork}.owner.json`))).toBe(true);

      const second = await startDaemon({ httpAdapter, dataDir }, { authentication: testPrincipals });
      try {
        for (const id of [sessionId, fork]) {
          for (const route of ['load', 'resume']) {
            const refused = await second.http.post(`/session/${id}/${route}`).set(as('bob')).send({});
            expect([refused.status, refused.body]).toEqual([404, { error: expect.any(String), code: 'session_not_found', sessionId: id }]);
          }
          const anonymous = await second.http.post(`/session/${id}/load`).send({});
          expect(anonymous.status).toBe(404);
          // Not made live by the refused loads: a poll of it is still not found, for its owner too.
          expect((await second.http.get(`/session/${id}/turns/current`).set(as('alice'))).status).toBe(404);
          await second.http.post(`/session/${id}/load`).set(as('alice')).send({}).expect(200);
          await second.http.get(`/session/${id}/turns/current`).set(as('alice')).expect(200);
          expect((await second.http.get(`/session/${id}/turns/current`).set(as('bob'))).body.code).toBe('session_not_found');
        }
        // A create naming alice's persisted session (not live) does not take it over: refused, and hers still.
        const takeover = await second.http.post('/session').set(as('bob')).send({ sessionId: idle });
        expect([takeover.status, takeover.body.code]).toEqual([400, 'invalid_session_id']);
        expect(JSON.parse(readFileSync(join(chats, `${idle}.owner.json`), 'utf8'))).toEqual({ v: 1, owner: 'alice' });
        await second.http.post(`/session/${idle}/load`).set(as('alice')).send({}).expect(200);
        // An operator loads anyone's session.
        await second.http.post(`/session/${sessionId}/load`).set(as('op:root')).send({}).expect(200);
      } finally {
        await second.close(true);
      }
    });
  });
});

// Added to a project exactly as `nest new` generated it (test/package/stock-hosts.e2e-spec.ts):
// its AppModule mounts TurnsModule over the reference runtime, as docs/install.md shows.
import { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { AppModule } from './../src/app.module';

describe('TurnsModule in the app (e2e)', () => {
  let app: INestApplication;

  beforeEach(async () => {
    const moduleFixture = await Test.createTestingModule({ imports: [AppModule] }).compile();
    app = moduleFixture.createNestApplication();
    await app.init();
  });

  afterEach(async () => {
    await app.close();
  });

  it('runs a prompt to completed and polls its raw final answer by promptId', async () => {
    const http = request(app.getHttpServer());
    const { body: session } = await http.post('/session').send({}).expect(200);
    const { body: admitted } = await http
      .post(`/session/${session.sessionId}/prompt`)
      .set('X-Qwen-Client-Id', session.clientId)
      .send({ prompt: [{ type: 'text', text: 'hi' }] })
      .expect(202);
    const { body: status } = await http.get(`/session/${session.sessionId}/turns/${admitted.promptId}?waitMs=10000`).expect(200);
    expect(status).toMatchObject({ state: 'completed', promptId: admitted.promptId, resultText: 'echo: hi' });
  });

  it('answers structured errors: an unknown session, a body that does not validate', async () => {
    const http = request(app.getHttpServer());
    const { body: missing } = await http.get('/session/nope/turns/current').expect(404);
    expect(missing).toEqual({ error: 'Session not found', code: 'session_not_found', sessionId: 'nope' });
    const { body: session } = await http.post('/session').send({}).expect(200);
    const { body: invalid } = await http.post(`/session/${session.sessionId}/prompt`).send({ prompt: [] }).expect(400);
    expect(invalid).toMatchObject({ code: expect.any(String) });
  });
});

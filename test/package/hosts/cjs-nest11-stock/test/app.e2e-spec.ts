import { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { createTurnsTestingApp, InMemoryBridgeOverlay } from 'nest-turn-status/testing';
import { AppModule } from './../src/app.module';

describe('AppController with TurnsModule (e2e)', () => {
  let app: INestApplication;
  let bridge: InMemoryBridgeOverlay;

  beforeEach(async () => {
    ({ app, bridge } = await createTurnsTestingApp({ imports: [AppModule] }));
    bridge.addSession('s1', { clientIds: ['c1'] });
  });

  afterEach(async () => {
    await app.close();
  });

  it('/ (GET)', () => {
    return request(app.getHttpServer()).get('/').expect(200).expect('Hello World!');
  });

  it('polls a prompt from queued to completed', async () => {
    const promptId = bridge.admit('s1', 'hello');
    await request(app.getHttpServer())
      .get(`/session/s1/turns/${promptId}`)
      .expect(200)
      .expect((res) => expect(res.body.state).toBe('queued'));
    bridge.start('s1');
    bridge.complete('s1', { resultText: 'hi' });
    const res = await request(app.getHttpServer()).get(`/session/s1/turns/${promptId}`).set('X-Qwen-Client-Id', 'c1').expect(200);
    expect(res.body).toMatchObject({ state: 'completed', resultText: 'hi' });
  });

  it('guards its own session route with the client ids of the session', async () => {
    await request(app.getHttpServer())
      .get('/sessions/s1/summary')
      .set('X-Qwen-Client-Id', 'c1')
      .expect(200, { sessionId: 's1', state: 'idle' });
    await request(app.getHttpServer()).get('/sessions/s1/summary').set('X-Qwen-Client-Id', 'c2').expect(400);
    await request(app.getHttpServer()).get('/sessions/nope/summary').expect(404);
  });
});

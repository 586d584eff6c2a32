// The example host runtime as the package ships it (docs/examples/host-runtime), copied into src/host-runtime
// (test/package/stock-hosts.e2e-spec.ts): TurnsModule over a runtime of the host's own, whose ports inject it.
import { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { AppModule } from './../src/host-runtime/app.module';

describe('the example host runtime (e2e)', () => {
  let app: INestApplication;

  beforeEach(async () => {
    const moduleFixture = await Test.createTestingModule({ imports: [AppModule] }).compile();
    app = moduleFixture.createNestApplication();
    await app.init();
  });

  afterEach(async () => {
    await app.close();
  });

  it('answers a prompt by promptId from its own runtime', async () => {
    const http = request(app.getHttpServer());
    const { body: session } = await http.post('/session').expect(200);
    const { body: admitted } = await http
      .post(`/session/${session.sessionId}/prompt`)
      .set('X-Qwen-Client-Id', session.clientId)
      .send({ text: 'hi' })
      .expect(202);
    const { body: status } = await http.get(`/session/${session.sessionId}/turns/${admitted.promptId}?waitMs=10000`).expect(200);
    expect(status).toMatchObject({ state: 'completed', promptId: admitted.promptId, resultText: 'echo: hi' });
  });
});

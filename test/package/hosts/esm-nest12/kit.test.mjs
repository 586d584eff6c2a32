// The ESM Nest 12 host's own supertest e2e, through nest-turn-status/testing,
// on Node's test runner (no Jest, no transform: the app is plain ESM).
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Controller, Get } from '@nestjs/common';
import request from 'supertest';
import { createTurnsTestingApp } from 'nest-turn-status/testing';

class HealthController {
  ping() {
    return { ok: true };
  }
}
Controller('host')(HealthController);
Get('ping')(HealthController.prototype, 'ping', Object.getOwnPropertyDescriptor(HealthController.prototype, 'ping'));

let app;
let bridge;
before(async () => {
  ({ app, bridge } = await createTurnsTestingApp({ controllers: [HealthController] }));
  bridge.addSession('s1', { clientIds: ['c1'] });
});
after(() => app.close());

test("the host's own route answers beside TurnsModule", async () => {
  await request(app.getHttpServer()).get('/host/ping').expect(200, { ok: true });
});

test('a prompt polled from queued to completed', async () => {
  const promptId = bridge.admit('s1', 'hello');
  const queued = await request(app.getHttpServer()).get(`/session/s1/turns/${promptId}`).expect(200);
  assert.equal(queued.body.state, 'queued');
  bridge.start('s1');
  bridge.complete('s1', { resultText: 'hi' });
  const done = await request(app.getHttpServer()).get(`/session/s1/turns/${promptId}`).set('X-Qwen-Client-Id', 'c1').expect(200);
  assert.equal(done.body.state, 'completed');
  assert.equal(done.body.resultText, 'hi');
});

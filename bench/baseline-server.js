// A bare server returning the bytes of a settled turn status, for the
// benchmark's baselines: node:http, Express or Fastify without Nest; or
// `replay`: node:http sending the headers and body a daemon answered a poll
// with (a JSON file `{ status, headers: [[name, value]…], body }` made by
// the bench), so the daemon and the floor send the same bytes.
//   node bench/baseline-server.js http|express|fastify
//   node bench/baseline-server.js replay <answer.json>
// Prints its URL, then serves until killed. Loopback only.
import { createServer } from 'node:http';

const body = Buffer.from(
  JSON.stringify({
    sessionId: '5c1d2a8e-7f7b-4a44-9a57-1f2e3d4c5b6a',
    state: 'completed',
    promptId: 'caa0b1c2-d3e4-4f50-8a6b-7c8d9e0f1a2b',
    promptText: 'prompt 4 ' + 'x'.repeat(200),
    queuedAt: 1796071090048,
    startedAt: 1796071090050,
    endedAt: 1796071090057,
    stopReason: 'end_turn',
    resultText: 'echo: prompt 4 ' + 'x'.repeat(200),
  }),
);
const headers = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-cache', etag: '"baseline"' };
const kind = process.argv[2];

if (kind === 'replay') {
  const { readFileSync } = await import('node:fs');
  const answer = JSON.parse(readFileSync(process.argv[3], 'utf8'));
  const replayed = Buffer.from(answer.body, 'utf8');
  const server = createServer((_req, res) => res.writeHead(answer.status, answer.headers.flat()).end(replayed));
  server.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${server.address().port}`));
} else if (kind === 'http') {
  const server = createServer((_req, res) => res.writeHead(200, headers).end(body));
  server.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${server.address().port}`));
} else if (kind === 'express') {
  const { default: express } = await import('express');
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.get('/session/:id/turns/:promptId', (_req, res) => res.set(headers).send(body));
  const server = app.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${server.address().port}`));
} else if (kind === 'fastify') {
  const { default: fastify } = await import('fastify');
  const app = fastify();
  app.get('/session/:id/turns/:promptId', (_req, reply) => reply.headers(headers).send(body));
  await app.listen({ port: 0, host: '127.0.0.1' });
  console.log(`http://127.0.0.1:${app.server.address().port}`);
} else {
  console.error('usage: baseline-server.js http|express|fastify | replay <answer.json>');
  process.exit(2);
}

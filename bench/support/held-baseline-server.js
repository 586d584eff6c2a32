// The floor for held requests: bare node:http that holds every GET until
// HOLD_MS after the first one arrived, then answers them all with the same
// pre-serialized bytes (a completed status whose endedAt is that moment) —
// no framework, no routing. Prints its URL; GET /debug/stats counts held ones.
import { createServer } from 'node:http';

const HOLD_MS = Number(process.env.HOLD_MS ?? 8_000);
const held = new Set();
let timer;

const server = createServer((req, res) => {
  if (req.url === '/debug/stats') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ waiters: held.size, heapUsedBytes: process.memoryUsage().heapUsed }));
    return;
  }
  held.add(res);
  res.on('close', () => held.delete(res));
  timer ??= setTimeout(() => {
    const endedAt = Date.now();
    const body = Buffer.from(JSON.stringify({ sessionId: 's', promptId: 'p', state: 'completed', endedAt, resultText: 'echo: one' }));
    const headers = { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length, 'cache-control': 'no-cache' };
    for (const waiting of held) waiting.writeHead(200, headers).end(body);
    held.clear();
    timer = undefined;
  }, HOLD_MS);
});
server.keepAliveTimeout = 0;
server.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${server.address().port}`));

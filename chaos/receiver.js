import { createServer } from 'node:http';

const WEBHOOK_HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature'];

/**
 * The webhook receiver the schedule misbehaves: `ok`, `slow` (answers after
 * `slowMs`, past the sender's timeout when the draw says so), `500`, or `down`
 * (the port closed, every open connection dropped). Every request it reads is a
 * `delivery` record, with what it answered.
 */
export class Receiver {
  constructor({ port, history, slowMs }) {
    Object.assign(this, { port, history, slowMs });
    this.mode = 'ok';
    this.sockets = new Set();
    this.server = undefined;
  }

  get base() {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The operator's endpoint; each node is given `<url>/<node>`, so a delivery's path names its sender. */
  get url() {
    return `${this.base}/hook`;
  }

  async up() {
    if (this.server) return;
    const server = createServer((req, res) => this.handle(req, res));
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    await new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', resolve);
    });
    this.server = server;
    this.mode = 'ok';
  }

  async down() {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => server.close(() => resolve()));
  }

  handle(req, res) {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const mode = this.mode;
      const answered = mode === '500' ? 500 : 200;
      const headers = Object.fromEntries(WEBHOOK_HEADERS.map((name) => [name, req.headers[name] ?? null]));
      const raw = Buffer.concat(chunks).toString('utf8');
      this.history.write({ type: 'delivery', t: Date.now(), path: req.url, headers, raw, answered, mode });
      const answer = () => {
        if (res.destroyed) return;
        res.writeHead(answered, { 'content-type': 'application/json' });
        res.end(answered === 200 ? '{"ok":true}' : '{"error":"chaos"}');
      };
      if (mode === 'slow') setTimeout(answer, this.slowMs);
      else answer();
    });
  }
}

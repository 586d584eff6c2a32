import { connect, createServer } from 'node:net';

/**
 * A loopback TCP proxy in front of one port, which the schedule can blackhole:
 * while it is, no byte moves either way and new connections wait unconnected,
 * but nothing is closed (a one-sided partition: the sockets stay "connected",
 * as behind a firewall that drops packets). On heal the held bytes flow on, as
 * TCP's retransmissions would deliver them.
 */
export class Proxy {
  constructor({ name, listenPort, targetPort }) {
    Object.assign(this, { name, listenPort, targetPort });
    this.blackholed = false;
    this.pairs = new Set();
    this.waiting = new Set();
  }

  get port() {
    return this.listenPort;
  }

  async start() {
    this.server = createServer((client) => {
      if (this.blackholed) {
        client.pause();
        client.on('error', () => undefined);
        this.waiting.add(client);
        client.once('close', () => this.waiting.delete(client));
      } else this.pipe(client);
    });
    await new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.listenPort, '127.0.0.1', resolve);
    });
  }

  pipe(client) {
    const upstream = connect(this.targetPort, '127.0.0.1');
    const pair = { client, upstream };
    this.pairs.add(pair);
    const end = () => {
      this.pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ]) {
      from.on('data', (chunk) => {
        if (!to.write(chunk)) from.pause();
      });
      to.on('drain', () => !this.blackholed && from.resume());
      from.on('error', end);
      from.on('close', end);
    }
    if (this.blackholed) this.hold(pair);
  }

  hold({ client, upstream }) {
    client.pause();
    upstream.pause();
  }

  blackhole() {
    this.blackholed = true;
    for (const pair of this.pairs) this.hold(pair);
  }

  heal() {
    this.blackholed = false;
    for (const { client, upstream } of this.pairs) {
      client.resume();
      upstream.resume();
    }
    for (const client of this.waiting) {
      this.waiting.delete(client);
      this.pipe(client);
      client.resume();
    }
  }

  async stop() {
    for (const { client, upstream } of this.pairs) {
      client.destroy();
      upstream.destroy();
    }
    for (const client of this.waiting) client.destroy();
    await new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

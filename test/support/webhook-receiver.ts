import { readdirSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a receiver got. */
export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
  /** Epoch ms when its headers arrived. */
  receivedAt: number;
}

/** How a receiver answers a request: a status (and headers), or `hang` to never answer. */
export type WebhookAnswer = { status: number; headers?: Record<string, string> } | 'hang';

/**
 * A real HTTP server on a loopback port the OS picks, standing in for a
 * webhook receiver: it records every request and answers by script; `next()`
 * hands the test each request in order (no sleeps).
 */
export class WebhookReceiver {
  readonly requests: ReceivedWebhook[] = [];
  private readonly unseen: ReceivedWebhook[] = [];
  private readonly waiters: Array<(request: ReceivedWebhook) => void> = [];
  private readonly hung = new Set<import('node:http').ServerResponse>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
    public answer: (request: ReceivedWebhook, index: number) => WebhookAnswer,
  ) {}

  static async start(
    answer: (request: ReceivedWebhook, index: number) => WebhookAnswer = () => ({ status: 200 }),
  ): Promise<WebhookReceiver> {
    const holder: { receiver?: WebhookReceiver } = {};
    const server = createServer((req, res) => {
      const receiver = holder.receiver!;
      const receivedAt = Date.now();
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const request = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), receivedAt };
        const index = receiver.requests.push(request) - 1;
        const answer = receiver.answer(request, index);
        if (answer === 'hang') receiver.hung.add(res);
        else res.writeHead(answer.status, answer.headers).end();
        const waiter = receiver.waiters.shift();
        if (waiter) waiter(request);
        else receiver.unseen.push(request);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    holder.receiver = new WebhookReceiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, answer);
    return holder.receiver;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** The next request not handed out yet (already received, or the next to come). */
  next(): Promise<ReceivedWebhook> {
    const request = this.unseen.shift();
    if (request) return Promise.resolve(request);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  async close(): Promise<void> {
    for (const res of this.hung) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Answers with `statuses` in turn, then 200. */
export const answering =
  (...statuses: Array<number | WebhookAnswer>) =>
  (_request: ReceivedWebhook, index: number): WebhookAnswer => {
    const answer = statuses[index] ?? 200;
    return typeof answer === 'number' ? { status: answer } : answer;
  };

/**
 * The deliveries an outbox directory holds, by id (none when it does not exist): a retry writes its new file before it
 * removes the old one, and a write in progress is a temp file beside them.
 */
export function pendingDeliveries(dir: string): string[] {
  try {
    return [...new Set(readdirSync(dir).flatMap((name) => /_(msg_[0-9a-f-]+)\.json$/.exec(name)?.[1] ?? []))];
  } catch {
    return [];
  }
}

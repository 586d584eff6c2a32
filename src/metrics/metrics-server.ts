import { Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { apiError } from '../errors/api-errors.js';
import type { TurnsMetrics } from './turns-metrics.js';

/**
 * `GET /metrics` on a listener of its own (`TURNS_METRICS_PORT`), so scrapes
 * stay off the API's port and its load balancer. Same host, and the same
 * token rule and browser walls as the API (its front door); anything but `GET /metrics` is a JSON 404.
 */
export class MetricsServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly server: Server;
  private readonly logger = new Logger('Metrics');

  constructor(
    private readonly metrics: TurnsMetrics,
    private readonly port: number,
    private readonly host: string,
    /** The daemon's front door for this listener (the browser walls and the bearer token). */
    front?: (server: Server) => void,
  ) {
    this.server = createServer((req, res) => {
      const send = (status: number, body: string, type = 'application/json; charset=utf-8') => {
        res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-store' });
        res.end(body);
      };
      if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') return send(404, JSON.stringify(apiError('not_found').toBody()));
      this.metrics.metrics().then(
        (text) => send(200, text, Registry.PROMETHEUS_CONTENT_TYPE),
        () => send(500, JSON.stringify(apiError('internal_error').toBody())),
      );
    });
    front?.(this.server);
  }

  /** Listens as the app starts (a port in use fails the start, as the API's does). */
  async onApplicationBootstrap(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.port, this.host, () => resolve());
    });
    this.logger.log(`metrics on ${this.url}`);
  }

  /** Where it listens (a real port when `TURNS_METRICS_PORT=0`); `undefined` before it does. */
  get url(): string | undefined {
    const address = this.server.address() as AddressInfo | null;
    if (!address) return undefined;
    return `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}/metrics`;
  }

  onApplicationShutdown(): Promise<void> {
    if (!this.server.listening) return Promise.resolve();
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}

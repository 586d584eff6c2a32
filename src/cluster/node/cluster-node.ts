import { Inject, Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { AddressInfo } from 'node:net';
import { CLUSTER_SETTINGS, type ClusterSettings } from './cluster.settings.js';

/** Names the node that answered, on every answer a node gives (and a peer's answer to a release). */
export const NODE_HEADER = 'x-turns-node';

/**
 * This daemon as the cluster knows it: its id, and the URL other nodes
 * forward to (configured, or read from the address the server bound).
 *
 * @publicApi
 */
@Injectable()
export class ClusterNode {
  readonly id: string;
  readonly startedAt = Date.now();
  private boundUrl?: string;

  constructor(
    @Inject(CLUSTER_SETTINGS) private readonly settings: ClusterSettings,
    private readonly adapterHost: HttpAdapterHost,
  ) {
    this.id = settings.nodeId;
  }

  /** False until the HTTP server listens: nothing is claimed or announced before. */
  get listening(): boolean {
    return this.settings.nodeUrl !== undefined || this.server()?.listening === true;
  }

  get url(): string {
    if (this.settings.nodeUrl) return this.settings.nodeUrl;
    if (this.boundUrl) return this.boundUrl;
    const address = this.server()?.address() as AddressInfo | null | undefined;
    if (!address) throw new Error('the cluster node has no URL before the server listens; set TURNS_NODE_URL');
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    return (this.boundUrl = `http://${host}:${address.port}`);
  }

  /** Runs `callback` once the HTTP server listens (at once if it already does). */
  whenListening(callback: () => void): void {
    const server = this.server() as (ReturnType<ClusterNode['server']> & { once(event: 'listening', cb: () => void): void }) | undefined;
    if (this.listening || !server) callback();
    else server.once('listening', callback);
  }

  private server(): { listening: boolean; address(): unknown } | undefined {
    return this.adapterHost.httpAdapter?.getHttpServer() as { listening: boolean; address(): unknown } | undefined;
  }
}

import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OutboxClaims } from './outbox-claims.js';
import type { WebhookDispatcher } from './webhook-dispatcher.js';
import { WebhookOutboxAdoption } from './webhook-outbox-adoption.js';

class FakeClaims extends OutboxClaims {
  readonly intervalMs = 1_000;
  serving = true;
  live = new Set<string>(['me']);
  winnable = new Set<string>();
  readonly claimed: string[] = [];
  unreachable = false;
  active(): boolean {
    return this.serving;
  }
  liveNodeIds(): Promise<ReadonlySet<string>> {
    return this.unreachable ? Promise.reject(new Error('ECONNREFUSED')) : Promise.resolve(this.live);
  }
  claim(nodeId: string): Promise<boolean> {
    this.claimed.push(nodeId);
    return Promise.resolve(this.winnable.has(nodeId));
  }
}

describe('WebhookOutboxAdoption', () => {
  let root: string;
  let adopted: string[];
  let dispatcher: WebhookDispatcher;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'turns-adoption-'));
    for (const node of ['me', 'alive', 'dead', 'taken']) mkdirSync(join(root, `outbox-${node}`));
    mkdirSync(join(root, 'not-an-outbox'));
    adopted = [];
    dispatcher = {
      outboxDir: join(root, 'outbox-me'),
      adopt: (dir: string) => (adopted.push(dir), Promise.resolve(2)),
    } as unknown as WebhookDispatcher;
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('adopts only the outboxes of dead nodes whose claim it won, claiming each just before moving it', async () => {
    const claims = new FakeClaims();
    claims.live.add('alive');
    claims.winnable.add('dead');
    await expect(new WebhookOutboxAdoption(dispatcher, claims).sweep()).resolves.toBe(2);
    expect(adopted).toEqual([join(root, 'outbox-dead')]);
    expect(claims.claimed.sort()).toEqual(['dead', 'taken']); // never its own, nor a live node's
  });

  it('does nothing without claims (a single daemon), while not serving, or when the directory is unreachable', async () => {
    await expect(new WebhookOutboxAdoption(dispatcher).sweep()).resolves.toBe(0);
    const claims = new FakeClaims();
    claims.winnable.add('dead');
    claims.serving = false;
    await expect(new WebhookOutboxAdoption(dispatcher, claims).sweep()).resolves.toBe(0);
    claims.serving = true;
    claims.unreachable = true;
    await expect(new WebhookOutboxAdoption(dispatcher, claims).sweep()).resolves.toBe(0);
    expect(adopted).toEqual([]);
  });

  it('never rejects: claims that throw are a sweep for next time', async () => {
    const claims = new FakeClaims();
    claims.winnable.add('dead');
    claims.active = () => {
      throw new Error('no node');
    };
    await expect(new WebhookOutboxAdoption(dispatcher, claims).sweep()).resolves.toBe(0);
    expect(adopted).toEqual([]);
  });
});

import { Logger } from '@nestjs/common';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PromptBridge } from '../bridge/prompt-bridge.js';
import type { SessionEventBus } from '../events/session-event-bus.js';
import type { ClusterState, ClusterView } from '../sessions/cluster-view.js';
import type { SessionRegistry } from '../sessions/session-registry.js';
import type { TurnWaitService } from '../turns/wait/turn-wait.service.js';
import type { WebhookDispatcher } from '../webhooks/webhook-dispatcher.js';
import { DaemonStatusService } from './daemon-status.service.js';

describe('DaemonStatusService readiness log', () => {
  let dir: string;
  const lines: Array<{ level: string; message: string }> = [];
  let spies: jest.SpyInstance[];

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'turns-ready-log-'));
    lines.length = 0;
    spies = (['warn', 'log'] as const).map((level) =>
      jest.spyOn(Logger.prototype, level).mockImplementation(function (this: Logger, message: unknown, ..._rest: unknown[]) {
        if ((this as unknown as { context?: string }).context === 'Readiness') lines.push({ level, message: String(message) });
      }),
    );
  });
  afterEach(() => {
    spies.forEach((spy) => spy.mockRestore());
    rmSync(dir, { recursive: true, force: true });
  });

  it('warns once when readiness turns not ready, however often it is probed, and says info when it is back', async () => {
    let cluster: ClusterState = { nodeId: 'a', redis: 'up', leases: 0 };
    const view: ClusterView = { clusterState: () => cluster };
    const service = new DaemonStatusService(
      {} as SessionRegistry,
      {} as PromptBridge,
      {} as TurnWaitService,
      {} as SessionEventBus,
      {} as WebhookDispatcher,
      { dataDir: dir },
      view,
    );
    expect(await service.unready()).toBeUndefined();
    cluster = { ...cluster, redis: 'down' };
    for (let i = 0; i < 3; i += 1) expect(await service.unready()).toBe('redis');
    cluster = { ...cluster, redis: 'up' };
    expect(await service.unready()).toBeUndefined();
    expect(await service.unready()).toBeUndefined();
    expect(lines).toEqual([
      { level: 'warn', message: 'not ready: the redis check fails; GET /health/ready answers 503 until it passes' },
      { level: 'log', message: 'ready again (redis passes); GET /health/ready answers 200' },
    ]);
  });
});

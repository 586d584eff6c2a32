import { Test } from '@nestjs/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BRIDGE_OPTIONS, type BridgeOptions } from '../bridge/bridge.settings.js';
import { pickSettings } from '../common/settings/setting.js';
import { loadDaemonConfig } from '../daemon/daemon-config.js';
import { SessionRegistry } from '../sessions/session-registry.js';
import { TERMINAL_OVERLAY_SIZE } from '../turns/rules/limits.js';
import { TurnsModule } from '../turns/turns.module.js';
import { RuntimeModule } from './runtime.module.js';
import { RUNTIME_SETTINGS } from './runtime.settings.js';

describe('RuntimeModule settings', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'runtime-settings-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  async function bridgeOptions(env: NodeJS.ProcessEnv): Promise<BridgeOptions> {
    const config = loadDaemonConfig({ TURNS_DATA_DIR: dir, TURNS_CHAT_RECORDING: 'false', ...env }, [], dir);
    const runtime = RuntimeModule.forRoot(pickSettings(config, RUNTIME_SETTINGS));
    // The runtime's routes are guarded by ClientIdGuard, which TurnsModule provides.
    const turns = TurnsModule.forRoot({ imports: [runtime], sessionLookup: SessionRegistry });
    const app = await Test.createTestingModule({ imports: [runtime, turns] }).compile();
    try {
      return app.get<BridgeOptions>(BRIDGE_OPTIONS);
    } finally {
      await app.close();
    }
  }

  it('hands the bridge each of its rows in force, a variable set or its default', async () => {
    expect(await bridgeOptions({ TURNS_ACTIVITY_REFRESH_MS: '5000', TURNS_MAX_PENDING_PROMPTS: '2' })).toMatchObject({
      activityRefreshMs: 5000,
      maxPendingPrompts: 2,
      maxPromptChars: 1024 * 1024,
      overlaySize: TERMINAL_OVERLAY_SIZE,
    });
    expect((await bridgeOptions({})).activityRefreshMs).toBe(1000);
  });
});

import { Test } from '@nestjs/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BRIDGE_OPTIONS, type BridgeOptions } from '../bridge/bridge.settings.js';
import { pickSettings } from '../common/settings/setting.js';
import { loadDaemonConfig } from '../daemon/daemon-config.js';
import { EVENT_OPTIONS, type EventOptions } from '../events/events.settings.js';
import { SessionRegistry } from '../sessions/session-registry.js';
import { SESSION_OPTIONS, type SessionOptions } from '../sessions/sessions.settings.js';
import { TERMINAL_OVERLAY_SIZE, TRANSCRIPT_SCAN_LIMITS } from '../turns/rules/limits.js';
import { TurnsModule } from '../turns/turns.module.js';
import { RuntimeModule } from './runtime.module.js';
import { RUNTIME_SETTINGS } from './runtime.settings.js';

describe('RuntimeModule settings', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'runtime-settings-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  async function optionsOf<T>(token: symbol, env: NodeJS.ProcessEnv): Promise<T> {
    const config = loadDaemonConfig({ TURNS_DATA_DIR: dir, TURNS_CHAT_RECORDING: 'false', ...env }, [], dir);
    const runtime = RuntimeModule.forRoot(pickSettings(config, RUNTIME_SETTINGS));
    // The runtime's routes are guarded by ClientIdGuard, which TurnsModule provides.
    const turns = TurnsModule.forRoot({ imports: [runtime], sessionLookup: SessionRegistry });
    const app = await Test.createTestingModule({ imports: [runtime, turns] }).compile();
    try {
      return app.get<T>(token);
    } finally {
      await app.close();
    }
  }

  it('hands the bridge each of its rows in force, a variable set or its default', async () => {
    const bridgeOptions = (env: NodeJS.ProcessEnv) => optionsOf<BridgeOptions>(BRIDGE_OPTIONS, env);
    expect(await bridgeOptions({ TURNS_ACTIVITY_REFRESH_MS: '5000', TURNS_MAX_PENDING_PROMPTS: '2' })).toMatchObject({
      activityRefreshMs: 5000,
      maxPendingPrompts: 2,
      maxPromptChars: 1024 * 1024,
      overlaySize: TERMINAL_OVERLAY_SIZE,
    });
    expect((await bridgeOptions({})).activityRefreshMs).toBe(1000);
  });

  it('hands the event streams and the sessions their own options in force, a variable set or its default', async () => {
    const env = { TURNS_MAX_SSE_STREAMS: '7', TURNS_MAX_SESSIONS: '3', TURNS_SESSION_IDLE_TIMEOUT_MS: '0' };
    expect(await optionsOf<EventOptions>(EVENT_OPTIONS, env)).toEqual({
      maxSseStreams: 7,
      maxSseStreamsPerSession: 16,
      sseHeartbeatMs: 15_000,
    });
    const sessions = await optionsOf<SessionOptions>(SESSION_OPTIONS, env);
    expect(sessions).toMatchObject({ maxSessions: 3, sessionIdleTimeoutMs: 0, dataDir: dir, scanLimits: TRANSCRIPT_SCAN_LIMITS });
    expect(sessions.workspaces.map((workspace) => workspace.cwd)).toEqual([dir]);
    expect(sessions.primary).toBe(sessions.workspaces[0]);
    expect((await optionsOf<SessionOptions>(SESSION_OPTIONS, {})).sessionIdleTimeoutMs).toBe(1_800_000);
  });
});

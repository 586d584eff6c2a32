// nest-turn-status/daemon: the runnable daemon.

import { assertSingleCopy } from '../common/single-copy.js';

// One copy of the injection tokens per process (see assertSingleCopy).
assertSingleCopy();

export { createApp } from './create-app.js';
export { DaemonModule, type DaemonOverrides } from './daemon.module.js';
export { loadDaemonMetrics, type DaemonMetrics } from './daemon-metrics.js';
export { loadDaemonConfig, type DaemonConfig, type LoadedDaemonConfig } from './daemon-config.js';
export { ConfigError } from '../common/settings/setting.js';
export { DaemonTokens } from './daemon-tokens.js';
export { main } from './main.js';
export { runCli } from './cli.js';
export { EXIT } from './cli-exit.js';
export { buildOpenApiDocument, type OpenApiDocumentOptions } from './openapi.js';
export { installBrowserWalls, browserWallSettings, type BrowserWallSettings } from './browser-walls.js';

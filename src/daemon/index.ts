// nest-turn-status/daemon: the runnable daemon.

export { createApp } from './create-app.js';
export { DaemonModule, type DaemonOverrides } from './daemon.module.js';
export { loadDaemonConfig, ConfigError, type DaemonConfig } from './daemon-config.js';
export { main } from './main.js';
export { runCli, EXIT } from './cli.js';

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { addDaemonOptions, completeDaemonConfig, loadDaemonConfig } from './daemon-config.js';
import { DAEMON_SETTINGS } from './daemon-settings.js';

const SETTINGS = Object.values(DAEMON_SETTINGS) as { name: string; default?: unknown; defaultText?: string }[];

describe('DAEMON_SETTINGS', () => {
  it('is the configuration table of docs/configuration.md: the same variables, in order, with the same defaults', () => {
    const readme = readFileSync(join(__dirname, '..', '..', 'docs', 'configuration.md'), 'utf8');
    const rows = [...readme.matchAll(/^\| `TURNS_([A-Z_]+)` \| ([^|]+) \|/gm)].map(([, name, shown]) => ({
      name,
      shown: shown!.trim().replaceAll('`', ''),
    }));
    const table = SETTINGS.map((setting) => ({
      name: setting.name,
      shown: setting.defaultText ?? (typeof setting.default === 'string' ? setting.default : '—'),
    }));
    expect(rows).toEqual(table);
  });

  it('gives `serve` a flag of every setting, naming its variable', () => {
    const help = addDaemonOptions(new Command('serve')).helpInformation();
    for (const { name } of SETTINGS) {
      expect(help).toMatch(new RegExp(`--${name.toLowerCase().replaceAll('_', '-')} <value>[^\\n]*(\\n {10,}[^\\n]*)*TURNS_${name}\\b`));
    }
  });

  it('completes a partial configuration with the defaults a loaded one has', () => {
    const loaded = loadDaemonConfig({}, [], '/srv/app');
    const partial = { host: loaded.host, port: 0, dataDir: '/d', workspaces: ['/w'], agent: 'echo' as const, maxPendingPrompts: 5 };
    expect(completeDaemonConfig({ ...partial, chatRecording: true, httpAdapter: 'express', echoDelayMs: 0 }, '/srv/app')).toEqual({
      ...loaded,
      ...partial,
    });
    expect(completeDaemonConfig({ ...loaded, maxWaiters: 3 })).toEqual({ ...loaded, maxWaiters: 3 });
  });

  it('gives the cluster’s settings their defaults in cluster mode only', () => {
    const single = loadDaemonConfig({}, [], '/srv/app');
    expect(completeDaemonConfig(single).leaseMs).toBeUndefined();
    expect(completeDaemonConfig({ ...single, redisUrl: 'redis://r', nodeId: 'n' })).toMatchObject({
      leaseMs: 10_000,
      forwardTimeoutMs: 10_000,
    });
  });
});

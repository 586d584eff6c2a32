import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { SETTINGS_TABLE_HEADER, settingsTable } from '../common/settings/settings-table.js';
import { addDaemonOptions, completeDaemonConfig, loadDaemonConfig } from './daemon-config.js';
import { DAEMON_SETTINGS } from './daemon-settings.js';

const SETTINGS = Object.values(DAEMON_SETTINGS) as { name: string; default?: unknown; defaultText?: string; switch?: boolean }[];

describe('DAEMON_SETTINGS', () => {
  // The table is written from the rows: `UPDATE_DOCS=1 npx jest src/daemon/daemon-settings.spec.ts` rewrites it.
  it('is the configuration table of docs/configuration.md, row for row', () => {
    const path = join(__dirname, '..', '..', 'docs', 'configuration.md');
    const table = settingsTable(DAEMON_SETTINGS);
    const tableOf = (page: string) => {
      const start = page.indexOf(SETTINGS_TABLE_HEADER);
      expect(start).toBeGreaterThan(-1);
      return { start, end: page.indexOf('\n\n', start) };
    };
    if (process.env.UPDATE_DOCS) {
      const page = readFileSync(path, 'utf8');
      const { start, end } = tableOf(page);
      writeFileSync(path, page.slice(0, start) + table + page.slice(end));
    }
    const page = readFileSync(path, 'utf8');
    const { start, end } = tableOf(page);
    expect(page.slice(start, end)).toBe(table);
    expect(page.match(/^\| `TURNS_/gm)).toHaveLength(SETTINGS.length);
  });

  it('gives `serve` a flag of every setting, naming its variable', () => {
    const help = addDaemonOptions(new Command('serve')).helpInformation();
    for (const { name, switch: alone } of SETTINGS) {
      const value = alone ? '\\[value\\]' : '<value>';
      expect(help).toMatch(new RegExp(`--${name.toLowerCase().replaceAll('_', '-')} ${value}[^\\n]*(\\n {10,}[^\\n]*)*TURNS_${name}\\b`));
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

import { Command, CommanderError, Option } from 'commander';
import { shownDefault } from '../common/settings/setting.js';
import { ConfigError, DAEMON_SETTINGS, flagOf, type DaemonSetting } from './daemon-settings.js';

export { ConfigError } from './daemon-settings.js';

type Settings = typeof DAEMON_SETTINGS;
type Key = keyof Settings;
type Value<K extends Key> = NonNullable<ReturnType<Settings[K]['read']>>;
/** Settings a loaded config always has: those with a default, but for the cluster's outside cluster mode. */
type Defaulted = {
  [K in Key]: Settings[K] extends { default: unknown } ? (Settings[K] extends { needs: unknown } ? never : K) : never;
}[Key];

/**
 * The daemon's configuration as {@link loadDaemonConfig} returns it: every
 * setting of {@link DAEMON_SETTINGS} that has a default is there.
 *
 * @publicApi
 */
export type LoadedDaemonConfig = { [K in Defaulted]: Value<K> } & { [K in Exclude<Key, Defaulted>]?: Value<K> };

/**
 * A configuration as `createApp` takes it: where to bind, the data and the
 * engine; any other setting left out takes its default.
 *
 * @publicApi
 */
export type DaemonConfig = Pick<
  LoadedDaemonConfig,
  'host' | 'port' | 'dataDir' | 'workspaces' | 'agent' | 'maxPendingPrompts' | 'chatRecording' | 'httpAdapter' | 'echoDelayMs'
> &
  Partial<LoadedDaemonConfig>;

/**
 * The command line itself is wrong (an unknown flag, a flag without its
 * value, a stray word): a usage error, not a bad setting.
 *
 * @publicApi
 */
export class DaemonUsageError extends ConfigError {}

const SETTINGS = Object.entries(DAEMON_SETTINGS) as [Key, DaemonSetting<unknown>][];
const KEY_OF = new Map(SETTINGS.map(([key, setting]) => [setting.name, key]));
const variableOf = (setting: DaemonSetting<unknown>) => `TURNS_${setting.name}`;

function defaultOf(setting: DaemonSetting<unknown>, cwd: string): unknown {
  return typeof setting.default === 'function' ? (setting.default as (cwd: string) => unknown)(cwd) : setting.default;
}

/** True for addresses only this machine can reach. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** The help line of a setting: what it means, its default and its range (commander adds the variable). */
function describe(setting: DaemonSetting<unknown>): string {
  const shown = shownDefault(setting)?.replaceAll('`', '');
  const extra = [shown && `default: ${shown}`, setting.range && `${setting.range[0]} to ${setting.range[1]}`].filter(Boolean);
  // The docs' markdown, as plain text.
  const doc = setting.doc.replaceAll('`', '').replace(/\[([^\]]+)\]\([^)]+\)/g, '$1');
  return extra.length ? `${doc} (${extra.join('; ')})` : doc;
}

/**
 * Adds a flag of every setting (`--data-dir <value>` for `TURNS_DATA_DIR`; a
 * bare flag's value may be left out) to `command`: the `serve` command's options.
 */
export function addDaemonOptions(command: Command): Command {
  for (const [, setting] of SETTINGS) {
    const value = setting.switch ? '[value]' : '<value>';
    command.addOption(new Option(`${flagOf(setting)} ${value}`, describe(setting)).env(variableOf(setting)));
  }
  return command;
}

/** The settings given as flags on `command` once parsed (commander also reads the environment; that is ours to read). */
export function flagsOf(command: Command): Partial<Record<Key, string>> {
  const values = command.opts<Record<string, string | true>>();
  // A switch given alone (`--rate-limit`) is `true`.
  return Object.fromEntries(
    SETTINGS.filter(([key]) => command.getOptionValueSource(key) === 'cli').map(([key]) => [key, String(values[key])]),
  );
}

/**
 * How a message names a setting: by the flag when `flags` gave it (`--port`), else by its variable
 * (`TURNS_PORT`), so the operator is told to change what they actually set.
 */
export function settingNamer(flags: Partial<Record<Key, string>> = {}): (key: Key) => string {
  return (key) => (flags[key] ? flagOf(DAEMON_SETTINGS[key]) : variableOf(DAEMON_SETTINGS[key]));
}

/** How a message names a setting the operator has still to set: both ways (`--agent-command or TURNS_AGENT_COMMAND`). */
function eitherName(key: Key): string {
  return `${flagOf(DAEMON_SETTINGS[key])} or ${variableOf(DAEMON_SETTINGS[key])}`;
}

/**
 * The daemon's flags (`--data-dir DIR`, …) by setting; anything else on the
 * command line — an unknown flag, a missing value, a stray word — throws a
 * {@link DaemonUsageError}.
 */
export function parseDaemonFlags(argv: string[]): Partial<Record<Key, string>> {
  const command = addDaemonOptions(new Command('serve'))
    .exitOverride()
    .configureOutput({ writeOut: () => undefined, writeErr: () => undefined });
  try {
    command.parse(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) throw new DaemonUsageError(error.message.replace(/^error: /, ''));
    throw error;
  }
  return flagsOf(command);
}

/**
 * Reads the configuration from flags (by setting) and the environment; flags
 * win. Every value is checked against its setting; a bad one throws a
 * {@link ConfigError} naming the flag that set it, else the variable, and so
 * do a non-loopback bind and `--require-auth` without a token.
 */
export function readDaemonConfig(flags: Partial<Record<Key, string>>, env: NodeJS.ProcessEnv, cwd = process.cwd()): LoadedDaemonConfig {
  const given = (key: Key): string | undefined => {
    const value = flags[key] ?? env[variableOf(DAEMON_SETTINGS[key])];
    return value === '' ? undefined : value;
  };
  const named = settingNamer(flags);
  const config: Record<string, unknown> = {};
  for (const [key, setting] of SETTINGS) {
    const raw = given(key);
    const needed = setting.needs && { key: KEY_OF.get(setting.needs.name)!, why: setting.needs.why };
    if (needed && given(needed.key) === undefined) {
      const why = needed.why ? ` (${needed.why})` : '';
      if (raw !== undefined) throw new ConfigError(`${named(key)} needs ${eitherName(needed.key)}${why}`);
      continue;
    }
    config[key] = raw === undefined ? defaultOf(setting, cwd) : setting.read(raw, named(key), cwd);
  }
  return checkDaemonConfig(config as LoadedDaemonConfig, named);
}

/** The rules between settings; `named` names each as the operator set it. */
function checkDaemonConfig(config: LoadedDaemonConfig, named: (key: Key) => string): LoadedDaemonConfig {
  const tokens = `${eitherName('token')}, or ${eitherName('tokensFile')}`;
  const hasToken = config.token !== undefined || config.tokensFile !== undefined;
  if (config.allowOrigins?.includes('*') && !hasToken) {
    throw new ConfigError(`${named('allowOrigins')}=* needs ${tokens}: any web page could drive the agent otherwise`);
  }
  if (config.agent === 'acp' && !config.agentCommand) throw new ConfigError(`${named('agent')}=acp needs ${eitherName('agentCommand')}`);
  if (config.metricsPort !== undefined && config.metricsPort !== 0 && config.metricsPort === config.port) {
    throw new ConfigError(`${named('metricsPort')} must differ from ${named('port')}`);
  }
  if (config.metricsPort !== undefined && !config.metrics)
    throw new ConfigError(`${named('metricsPort')} needs ${eitherName('metrics')}=true`);
  if (config.headersTimeoutMs > config.requestTimeoutMs)
    throw new ConfigError(`${named('headersTimeoutMs')} must not exceed ${named('requestTimeoutMs')}`);
  if (config.redisUrl && !config.nodeUrl && (config.host === '0.0.0.0' || config.host === '::')) {
    throw new ConfigError(`${named('host')}=${config.host} is not an address other nodes can use: set ${named('nodeUrl')}`);
  }
  if (!isLoopback(config.host) && !hasToken) {
    throw new ConfigError(`refusing to bind ${config.host} without ${tokens}: only loopback addresses may run unauthenticated`);
  }
  if (config.requireAuth && !hasToken) {
    throw new ConfigError(`${named('requireAuth')} needs ${tokens}: with no token, no request but /health could ever be authorized`);
  }
  return config;
}

/**
 * Reads the configuration; CLI flags win over the environment. Every number is
 * range-checked; a bad value throws a {@link ConfigError} naming the variable,
 * and so does a non-loopback bind without a token.
 *
 * @publicApi
 */
export function loadDaemonConfig(env: NodeJS.ProcessEnv, argv: string[] = [], cwd = process.cwd()): LoadedDaemonConfig {
  return readDaemonConfig(parseDaemonFlags(argv), env, cwd);
}

/** `config` with the default of every setting it leaves out (a loaded config is returned as is). */
export function completeDaemonConfig(config: DaemonConfig, cwd = process.cwd()): LoadedDaemonConfig {
  const complete: Record<string, unknown> = { ...config };
  for (const [key, setting] of SETTINGS) {
    const value = complete[key] === undefined ? defaultOf(setting, cwd) : undefined;
    if (value === undefined || (setting.needs && complete[KEY_OF.get(setting.needs.name)!] === undefined)) continue;
    complete[key] = value;
  }
  return complete as LoadedDaemonConfig;
}

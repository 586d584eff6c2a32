import { isAbsolute, resolve } from 'node:path';
import { parseArgs } from 'node:util';

/**
 * Everything the daemon reads from its environment (or the same CLI flags).
 *
 * @publicApi
 */
export interface DaemonConfig {
  host: string;
  port: number;
  dataDir: string;
  workspaces: string[];
  agent: 'echo' | 'acp';
  agentCommand?: string;
  token?: string;
  promptDeadlineMs?: number;
  maxPendingPrompts: number;
  chatRecording: boolean;
  httpAdapter: 'express' | 'fastify';
  echoDelayMs: number;
}

/** @publicApi */
export class ConfigError extends Error {}

/** `TURNS_DATA_DIR` ⇄ `--data-dir`: every variable has a flag of the same name. */
const VARIABLES = [
  'HOST',
  'PORT',
  'DATA_DIR',
  'WORKSPACES',
  'AGENT',
  'AGENT_COMMAND',
  'TOKEN',
  'PROMPT_DEADLINE_MS',
  'MAX_PENDING_PROMPTS',
  'CHAT_RECORDING',
  'HTTP_ADAPTER',
  'ECHO_DELAY_MS',
] as const;
type Variable = (typeof VARIABLES)[number];
const flagOf = (name: Variable) => name.toLowerCase().replaceAll('_', '-');

function integer(name: string, raw: string, min: number): number {
  if (!/^\d+$/.test(raw) || Number(raw) < min || !Number.isSafeInteger(Number(raw))) {
    throw new ConfigError(`${name} must be an integer >= ${min} (got "${raw}")`);
  }
  return Number(raw);
}

function oneOf<T extends string>(name: string, raw: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(raw)) throw new ConfigError(`${name} must be one of ${allowed.join(', ')} (got "${raw}")`);
  return raw as T;
}

/** True for addresses only this machine can reach. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * Reads the configuration; CLI flags win over the environment. Throws a
 * {@link ConfigError} for bad values and for a non-loopback bind without a token.
 *
 * @publicApi
 */
export function loadDaemonConfig(env: NodeJS.ProcessEnv, argv: string[] = [], cwd = process.cwd()): DaemonConfig {
  const { values } = parseArgs({
    args: argv,
    options: Object.fromEntries(VARIABLES.map((name) => [flagOf(name), { type: 'string' as const }])),
    strict: true,
  });
  const read = (name: Variable): string | undefined => {
    const value = (values as Record<string, string | undefined>)[flagOf(name)] ?? env[`TURNS_${name}`];
    return value === undefined || value === '' ? undefined : value;
  };
  const workspaces = (read('WORKSPACES') ?? cwd)
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  for (const path of workspaces) {
    if (!isAbsolute(path)) throw new ConfigError(`TURNS_WORKSPACES entries must be absolute paths (got "${path}")`);
  }
  const config: DaemonConfig = {
    host: read('HOST') ?? '127.0.0.1',
    port: integer('TURNS_PORT', read('PORT') ?? '4170', 0),
    dataDir: resolve(cwd, read('DATA_DIR') ?? '.turns-data'),
    workspaces: workspaces.map((p) => resolve(p)),
    agent: oneOf('TURNS_AGENT', read('AGENT') ?? 'echo', ['echo', 'acp'] as const),
    agentCommand: read('AGENT_COMMAND'),
    token: read('TOKEN'),
    promptDeadlineMs:
      read('PROMPT_DEADLINE_MS') === undefined ? undefined : integer('TURNS_PROMPT_DEADLINE_MS', read('PROMPT_DEADLINE_MS')!, 1),
    maxPendingPrompts: integer('TURNS_MAX_PENDING_PROMPTS', read('MAX_PENDING_PROMPTS') ?? '5', 1),
    chatRecording: oneOf('TURNS_CHAT_RECORDING', read('CHAT_RECORDING') ?? 'true', ['true', 'false'] as const) === 'true',
    httpAdapter: oneOf('TURNS_HTTP_ADAPTER', read('HTTP_ADAPTER') ?? 'express', ['express', 'fastify'] as const),
    echoDelayMs: integer('TURNS_ECHO_DELAY_MS', read('ECHO_DELAY_MS') ?? '0', 0),
  };
  if (config.agent === 'acp' && !config.agentCommand) throw new ConfigError('TURNS_AGENT=acp needs TURNS_AGENT_COMMAND');
  if (!isLoopback(config.host) && !config.token) {
    throw new ConfigError(`refusing to bind ${config.host} without TURNS_TOKEN: only loopback addresses may run unauthenticated`);
  }
  return config;
}

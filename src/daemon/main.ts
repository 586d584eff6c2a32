import 'reflect-metadata';
import { Logger, type INestApplication } from '@nestjs/common';
import { createServer } from 'node:net';
import {
  ConfigError,
  DaemonUsageError,
  parseDaemonFlags,
  readDaemonConfig,
  settingNamer,
  type LoadedDaemonConfig,
} from './daemon-config.js';
import { createApp } from './create-app.js';
import { DaemonTokens, principalCount } from './daemon-tokens.js';
import { ShutdownSignal } from './shutdown-signal.js';
import { tracingEnabled } from '../telemetry/tracing.js';

/** How long a graceful shutdown may take before the process exits anyway. */
const SHUTDOWN_GRACE_MS = 5_000;

/**
 * Fails fast, before Nest starts (and logs), when the port is taken: the
 * operator gets one line. A port freed in between is simply used.
 */
function assertPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}

/** One line for the operator, and exit code 1 (2 for bad configuration). */
function fail(message: string, code = 1): never {
  console.error(`nest-turn-status: ${message}`);
  process.exit(code);
}

/**
 * SIGINT/SIGTERM close the app — event streams end, agents stop, the recorder
 * flushes — and exit; if that takes longer than 5 s, or a second signal
 * arrives, the process exits at once (see {@link ShutdownSignal}).
 */
function exitOnSignals(app: INestApplication): void {
  const signals = new ShutdownSignal();
  const stop = (signal: NodeJS.Signals) => {
    const step = signals.receive(signal);
    if (step === 'repeat') return;
    if (step === 'exit now') process.exit(130);
    new Logger('Daemon').log(`${signal}: shutting down`);
    setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS).unref();
    const server = app.getHttpServer() as { closeAllConnections?: () => void };
    app
      .close()
      .then(() => process.exit(0))
      .catch(() => process.exit(1));
    // Held requests (and anything still open) must not keep the server alive.
    setTimeout(() => server.closeAllConnections?.(), 100).unref();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

/**
 * SIGHUP re-reads the tokens file: tokens rotate without a restart (a bad
 * file keeps the table in force). Without a tokens file, SIGHUP keeps Node's
 * default (the process ends, as on a closed terminal).
 */
function reloadTokensOnHangup(app: INestApplication, config: LoadedDaemonConfig): void {
  if (config.tokensFile === undefined) return;
  const tokens = app.get(DaemonTokens);
  process.on('SIGHUP', () => tokens.reload());
}

/**
 * Starts the daemon from the environment and command-line flags. A bad
 * setting exits with code 2 and one line (a malformed command line, 4); a port in use or any other start
 * failure with code 1 and one line.
 *
 * @publicApi
 */
export async function main(argv: string[] = process.argv.slice(2)): Promise<void> {
  let config;
  let flags;
  try {
    flags = parseDaemonFlags(argv);
    config = readDaemonConfig(flags, process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    fail(error.message, error instanceof DaemonUsageError ? 4 : 2);
  }
  await serve(config, settingNamer(flags));
}

/**
 * Starts the daemon of a loaded configuration (the `serve` command); a start failure exits with code 1 and one
 * line, naming the setting to change as `nameOf` does (the flag when one was given, else the variable).
 */
export async function serve(config: LoadedDaemonConfig, nameOf = settingNamer()): Promise<void> {
  let app: INestApplication;
  try {
    await assertPortFree(config.host, config.port);
    app = await createApp(config);
    exitOnSignals(app);
    reloadTokensOnHangup(app, config);
    await app.listen(config.port, config.host);
  } catch (error) {
    // A bad tokens file: a setting's fault, as a bad value is.
    if (error instanceof ConfigError) fail(error.message, 2);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') fail(`port ${config.port} is in use; set ${nameOf('port')}`);
    if (code === 'EADDRNOTAVAIL') fail(`cannot bind ${config.host}; set ${nameOf('host')}`);
    if (code === 'EACCES') fail(`no permission to bind ${config.host}:${config.port}; set ${nameOf('port')}`);
    fail(`could not start: ${(error as Error).message ?? String(error)}`);
  }
  // The bound address (a real port when TURNS_PORT=0). No token is ever logged; only how many principals have one.
  const url = (await app.getUrl()).replace('[::1]', 'localhost');
  const principals = app.get(DaemonTokens).size;
  const auth = principals === 0 ? 'off' : `bearer (${principalCount(principals)})`;
  new Logger('Daemon').log(
    `listening on ${url} (engine ${config.agent}, adapter ${config.httpAdapter}, auth ${auth}, metrics ${config.metrics ? 'on' : 'off'}, tracing ${tracingEnabled() ? 'opentelemetry' : 'off'}, workspaces ${config.workspaces.join(', ')})`,
  );
}

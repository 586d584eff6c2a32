import { Command, CommanderError } from 'commander';
import { PACKAGE_VERSION } from '../common/package-version.js';
import { ownRequire } from '../common/own-require.js';
import { installedNestMajor } from '../common/peer-install.js';
import { missingPackages, SERVE_PACKAGES, serveNeedsMessage } from './serve-packages.js';
import { unknownCommand } from './cli-output.js';
import { EXIT, exitCodeOfAnswer } from './cli-exit.js';
import { addClientCommands, type CliRun, type Io } from './cli-client-commands.js';
import { addTokenCommand } from './token-command.js';
import { addDaemonOptions, ConfigError, flagsOf, readDaemonConfig, settingNamer, type LoadedDaemonConfig } from './daemon-config.js';
import { TurnsApiError, TurnsConnectionError, TurnWaitTimeoutError, TurnWindowExpiredError } from '../client/index.js';

export { EXIT } from './cli-exit.js';

/** The package a failed `import()` (or, in the CommonJS build, `require()`) named; not a file of this package. */
function missingPackage(error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException)?.code;
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return undefined;
  const name = /Cannot find (?:package|module) '([^']+)'/.exec((error as Error).message)?.[1];
  return name && !name.startsWith('.') && !name.startsWith('/') ? name : undefined;
}

/**
 * The `nest-turn-status` command line: `serve` (the daemon), `prompt`,
 * `wait`, `status`, `turns`, `permissions` and `close` (on the client), `token` (a new token for the tokens file).
 * Resolves with the exit code.
 *
 * @publicApi
 */
export async function runCli(
  argv: string[],
  io: Io = { stdout: process.stdout, stderr: process.stderr, env: process.env, stdin: process.stdin },
): Promise<number> {
  const run: CliRun = { code: EXIT.completed };
  const program = new Command('nest-turn-status')
    .description('Poll and wait for turns of an AI-agent daemon; or run the daemon (the default command).')
    .version(PACKAGE_VERSION, '-V, --version')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .showHelpAfterError();

  addClientCommands(program, io, run);

  addTokenCommand(program, io);

  const hint = ' (nest-turn-status --help lists the commands, serve --help the flags)';
  addDaemonOptions(program.command('serve', { isDefault: true }))
    .description('run the daemon (the default command); every flag is also a TURNS_* variable, and flags win')
    // A typo, an unknown flag or a flag without its value never starts a daemon: one line, naming the help.
    .showHelpAfterError(false)
    .configureOutput({ writeOut: (s) => io.stdout.write(s), outputError: (s, write) => write(s.replace(/\n$/, `${hint}\n`)) })
    // A stray word (a mistyped command lands here, as the default) is named as such.
    .allowExcessArguments()
    .action(async (_flags: unknown, command: Command) => {
      const stray = command.args[0];
      // A word where the command goes (serve not named) is a mistyped command: commander's own "(Did you mean …?)".
      const typo = stray !== undefined && stray === argv[0] && argv[0] !== command.name();
      if (typo) command.error(unknownCommand(program, stray), { exitCode: EXIT.usage });
      if (stray !== undefined) command.error(`error: Unexpected argument '${stray}'`, { exitCode: EXIT.usage });
      const flags = flagsOf(command);
      let config: LoadedDaemonConfig;
      try {
        config = readDaemonConfig(flags, io.env);
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        io.stderr.write(`nest-turn-status: ${error.message}\n`);
        run.code = EXIT.badSetting;
        return;
      }
      let serve: typeof import('./main.js').serve;
      try {
        ({ serve } = await import('./main.js'));
      } catch (error) {
        const name = missingPackage(error);
        if (!name) throw error;
        io.stderr.write(
          serveNeedsMessage(
            missingPackages(SERVE_PACKAGES, (pkg) => ownRequire.resolve(pkg)),
            name,
            installedNestMajor(),
          ),
        );
        run.code = EXIT.error;
        return;
      }
      await serve(config, settingNamer(flags));
      run.code = -1; // the daemon keeps running
    });

  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.completed : EXIT.usage;
    if (error instanceof TurnWindowExpiredError || error instanceof TurnWaitTimeoutError) {
      io.stderr.write(`${error.message}\n`);
      return EXIT.expired;
    }
    if (error instanceof TurnsApiError) {
      io.stderr.write(`${error.message}\n`);
      return exitCodeOfAnswer(error);
    }
    // fetch rejects with a TypeError when the daemon cannot be reached (the client names it a
    // TurnsConnectionError, whose cause is fetch's own); anything else is ours to report.
    const failure = (error instanceof TurnsConnectionError ? error.cause : error) as TypeError;
    if (run.url === undefined || !(error instanceof TurnsConnectionError || error instanceof TypeError)) {
      io.stderr.write(`error: ${(error as Error).message ?? String(error)}\n`);
      return EXIT.error;
    }
    const { cause } = failure as { cause?: { code?: string; message?: string } };
    const reason = cause?.code ?? cause?.message;
    io.stderr.write(`cannot reach the daemon at ${run.url}: ${failure.message}${reason ? ` (${reason})` : ''}\n`);
    return EXIT.usage;
  }
  return run.code;
}

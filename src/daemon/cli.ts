import { Command, CommanderError, Option } from 'commander';
import { PACKAGE_VERSION } from '../common/package-version.js';
import { ownRequire } from '../common/own-require.js';
import { installedNestMajor } from '../common/peer-install.js';
import { missingPackages, SERVE_PACKAGES, serveNeedsMessage } from './serve-packages.js';
import { Notes, rateLimitedLine, turnLine, unknownCommand } from './cli-output.js';
import { milliseconds, turnStates } from './cli-arguments.js';
import { waitAndPrint, type WaitFlags } from './cli-wait.js';
import { EXIT, exitCodeOf, exitCodeOfAnswer } from './cli-exit.js';
import type { CallerFlags } from './permission-choice.js';
import { runPermissionsCommand, type PermissionFlags } from './permissions-command.js';
import { addDaemonOptions, ConfigError, flagsOf, readDaemonConfig, settingNamer, type LoadedDaemonConfig } from './daemon-config.js';
import {
  TurnsApiError,
  TurnsClient,
  TurnsConnectionError,
  TurnWaitTimeoutError,
  TurnWindowExpiredError,
  type TurnState,
} from '../client/index.js';

export { EXIT } from './cli-exit.js';

/** The package a failed `import()` (or, in the CommonJS build, `require()`) named; not a file of this package. */
function missingPackage(error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException)?.code;
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return undefined;
  const name = /Cannot find (?:package|module) '([^']+)'/.exec((error as Error).message)?.[1];
  return name && !name.startsWith('.') && !name.startsWith('/') ? name : undefined;
}

interface Io {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  /** Where a y/N answer to the agent's permission requests is read, when it is a terminal. */
  stdin?: NodeJS.ReadableStream & { isTTY?: boolean };
}

interface ClientFlags {
  url?: string;
  token?: string;
  clientId?: string;
  json?: boolean;
  timeout?: string;
}

type PromptFlags = ClientFlags & WaitFlags & { session?: string; wait?: boolean; idempotencyKey?: string };

const SESSION = 'the session id';

/**
 * The `nest-turn-status` command line: `serve` (the daemon), `prompt`,
 * `wait`, `status`, `turns` and `permissions` (on the client). Resolves with the exit code.
 *
 * @publicApi
 */
export async function runCli(
  argv: string[],
  io: Io = { stdout: process.stdout, stderr: process.stderr, env: process.env, stdin: process.stdin },
): Promise<number> {
  let code: number = EXIT.completed;
  let url: string | undefined;
  const program = new Command('nest-turn-status')
    .description('Poll and wait for turns of an AI-agent daemon; or run the daemon (the default command).')
    .version(PACKAGE_VERSION, '-V, --version')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .showHelpAfterError();

  const clientOptions = (command: Command, json = 'print the status as JSON instead of the result text') =>
    command
      .addOption(new Option('--url <url>', 'daemon URL').env('TURNS_URL').default('http://127.0.0.1:4170'))
      .addOption(new Option('--token <token>', 'bearer token').env('TURNS_TOKEN'))
      .addOption(new Option('--client-id <id>', 'the client id registered on the session').env('TURNS_CLIENT_ID'))
      .option('--json', json);
  // A 429 is waited out (docs/operating.md#rate-limits), and said so: above the progress line while one is drawn.
  const notes = new Notes(io.stderr);
  const waitIo = { ...io, notes };
  const client = (flags: ClientFlags, clientId = flags.clientId) => {
    url = flags.url!;
    return new TurnsClient({
      baseUrl: flags.url!,
      token: flags.token,
      clientId,
      onRateLimited: (wait) => notes.write(rateLimitedLine(wait)),
    });
  };
  // What a `permissions` command suggested from here must repeat to work in another shell.
  const callerOf = (flags: ClientFlags, command: Command, clientId = flags.clientId): CallerFlags => ({
    url: command.getOptionValueSource('url') === 'cli' ? flags.url : undefined,
    clientId,
  });
  // The agent's requests for permission while waiting: see PermissionMode.
  const waitOptions = (command: Command) =>
    clientOptions(command)
      .addOption(new Option('--timeout <ms>', 'give up waiting after this many ms').default('600000').argParser(milliseconds))
      .addOption(new Option('--approve', 'allow each tool call the agent asks for, once (its allow_once option)').conflicts('deny'))
      .option('--deny', 'refuse each tool call the agent asks for');

  waitOptions(
    program
      .command('prompt')
      .description('admit a prompt (in a new session unless --session); with --wait, wait for its result')
      .argument('<text>', 'the prompt text')
      .option('--session <id>', 'an existing session')
      .option('--wait', 'wait for the result and print it')
      .option('--idempotency-key <key>', 'the same key on a rerun admits nothing new: the same session and prompt answer again'),
  ).action(async (text: string, flags: PromptFlags, command: Command) => {
    // Answers are given while waiting only: without --wait they would be dropped unseen.
    const decides = flags.approve ? '--approve' : flags.deny ? '--deny' : undefined;
    if (decides && !flags.wait)
      command.error(`error: ${decides} answers the agent's requests while waiting: add --wait`, { exitCode: EXIT.usage });
    let turns = client(flags);
    // Each call sends a key of its own by default (kept across its retries); a given one also makes reruns safe.
    const key = { idempotencyKey: flags.idempotencyKey };
    let sessionId = flags.session;
    let clientId = flags.clientId;
    if (sessionId === undefined) {
      const created = await turns.createSession({ sessionScope: 'thread' }, key);
      sessionId = created.sessionId;
      // The session's own client: the prompt's originator, who may answer its requests under any policy.
      clientId ??= created.clientId;
      turns = client(flags, clientId);
    }
    const { promptId } = await turns.prompt(sessionId, text, key);
    // The client id is named (on stderr, stdout's format unchanged): another shell answers as the originator with it.
    const named = clientId === undefined ? '' : `client ${clientId}`;
    if (!flags.wait) {
      if (flags.json) io.stdout.write(`${JSON.stringify({ sessionId, promptId, clientId })}\n`);
      else {
        io.stdout.write(`${sessionId} ${promptId}\n`);
        if (named) io.stderr.write(`${named}\n`);
      }
      return;
    }
    io.stderr.write(`session ${sessionId} prompt ${promptId}${named && ` ${named}`}\n`);
    code = exitCodeOf(await waitAndPrint(waitIo, turns, sessionId, promptId, flags, callerOf(flags, command, clientId)));
  });

  waitOptions(
    program
      .command('wait')
      .description('wait for a prompt to settle and print its result')
      .argument('<session>', SESSION)
      .argument('<prompt>', 'the prompt id'),
  ).action(async (sessionId: string, promptId: string, flags: ClientFlags & WaitFlags, command: Command) => {
    code = exitCodeOf(await waitAndPrint(waitIo, client(flags), sessionId, promptId, flags, callerOf(flags, command)));
  });

  clientOptions(
    program
      .command('status')
      .description('print the status of a prompt, or of the current turn')
      .argument('<session>', SESSION)
      .argument('[prompt]', 'the prompt id (none: the current turn)'),
  ).action(async (sessionId: string, promptId: string | undefined, flags: ClientFlags) => {
    const turns = client(flags);
    const status = promptId ? await turns.getTurn(sessionId, promptId) : await turns.getCurrent(sessionId);
    if (flags.json) io.stdout.write(`${JSON.stringify(status)}\n`);
    else
      io.stdout.write(
        `${status.state}${'promptId' in status ? ` ${status.promptId}` : ''}${'resultText' in status && status.resultText !== undefined ? `\n${status.resultText}` : ''}\n`,
      );
  });

  clientOptions(
    program
      .command('turns')
      .description("list a session's turns, newest first (with --json, one status per line)")
      .argument('<session>', SESSION)
      .addOption(new Option('--state <states>', 'only these states, a comma list (e.g. running,error)').argParser(turnStates)),
    'print each status as one JSON line',
  ).action(async (sessionId: string, flags: ClientFlags & { state?: TurnState[] }) => {
    for await (const page of client(flags).listTurns(sessionId, { state: flags.state, limit: 100 })) {
      for (const status of page.turns) io.stdout.write(`${flags.json ? JSON.stringify(status) : turnLine(status)}\n`);
    }
  });

  clientOptions(
    program
      .command('permissions')
      .description("list a session's pending permission requests, or answer one")
      .argument('<session>', SESSION)
      .argument('[request]', 'the request id to answer')
      .addOption(new Option('--allow', 'allow it once (its allow_once option)').conflicts(['deny', 'option', 'cancel']))
      .addOption(new Option('--deny', 'refuse it (its reject option, else cancelled)').conflicts(['option', 'cancel']))
      .addOption(new Option('--option <id>', 'choose this option').conflicts('cancel'))
      .option('--cancel', 'answer cancelled'),
    'print each pending request as one JSON line',
  ).action(async (sessionId: string, requestId: string | undefined, flags: ClientFlags & PermissionFlags, command: Command) => {
    const refused = await runPermissionsCommand(client(flags), sessionId, requestId, flags, io);
    if (refused && 'usage' in refused) command.error(refused.usage, { exitCode: EXIT.usage });
    if (refused) {
      io.stderr.write(`${refused.notFound}\n`);
      code = EXIT.notFound;
    }
  });

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
        code = EXIT.badSetting;
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
        code = EXIT.error;
        return;
      }
      await serve(config, settingNamer(flags));
      code = -1; // the daemon keeps running
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
    if (url === undefined || !(error instanceof TurnsConnectionError || error instanceof TypeError)) {
      io.stderr.write(`error: ${(error as Error).message ?? String(error)}\n`);
      return EXIT.error;
    }
    const { cause } = failure as { cause?: { code?: string; message?: string } };
    const reason = cause?.code ?? cause?.message;
    io.stderr.write(`cannot reach the daemon at ${url}: ${failure.message}${reason ? ` (${reason})` : ''}\n`);
    return EXIT.usage;
  }
  return code;
}

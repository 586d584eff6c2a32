import { Command, Option } from 'commander';
import { TurnsClient, type TurnState } from '../client/index.js';
import { EXIT, exitCodeOf } from './cli-exit.js';
import { milliseconds, turnStates } from './cli-arguments.js';
import { Notes, rateLimitedLine, shownState, turnLine } from './cli-output.js';
import { waitAndPrint, type WaitFlags } from './cli-wait.js';
import { approvalLines, type CallerFlags } from './permission-choice.js';
import { runPermissionsCommand, type PermissionFlags } from './permissions-command.js';

/** Where the command line writes and reads, and its environment. */
export interface Io {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  /** Where a y/N answer to the agent's permission requests is read, when it is a terminal. */
  stdin?: NodeJS.ReadableStream & { isTTY?: boolean };
}

/** What a command leaves for the command line: its exit code, and the daemon URL it called (named if unreachable). */
export interface CliRun {
  code: number;
  url?: string;
}

interface ClientFlags {
  url?: string;
  token?: string;
  clientId?: string;
  json?: boolean;
  timeout?: string;
}

type PromptFlags = ClientFlags & WaitFlags & { session?: string; wait?: boolean; keep?: boolean; idempotencyKey?: string };

/** The daemon the client commands call without `--url`/`TURNS_URL`: this machine's, on `TURNS_PORT` when that is set. */
export function defaultDaemonUrl(env: NodeJS.ProcessEnv): string {
  const port = env.TURNS_PORT?.trim();
  return `http://127.0.0.1:${port && /^\d{1,5}$/.test(port) ? port : '4170'}`;
}

const SESSION = 'the session id';

/** The commands on the client: `prompt`, `wait`, `status`, `turns`, `permissions` and `close`. */
export function addClientCommands(program: Command, io: Io, run: CliRun): void {
  const clientOptions = (command: Command, json = 'print the status as JSON instead of the result text') =>
    command
      .addOption(new Option('--url <url>', 'daemon URL (else 127.0.0.1 on TURNS_PORT)').env('TURNS_URL').default(defaultDaemonUrl(io.env)))
      .addOption(new Option('--token <token>', 'bearer token').env('TURNS_TOKEN'))
      .addOption(new Option('--client-id <id>', 'the client id registered on the session').env('TURNS_CLIENT_ID'))
      .option('--json', json);
  // A 429 is waited out (docs/operating.md#rate-limits), and said so: above the progress line while one is drawn.
  const notes = new Notes(io.stderr);
  const waitIo = { ...io, notes };
  const client = (flags: ClientFlags, clientId = flags.clientId) => {
    run.url = flags.url!;
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
      .option('--wait', 'wait for the result and print it (then close the session it made, unless --keep)')
      .option('--keep', 'keep the session a prompt without --session makes live once its turn settles')
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
    run.code = exitCodeOf(await waitAndPrint(waitIo, turns, sessionId, promptId, flags, callerOf(flags, command, clientId)));
    // A one-shot prompt's session (and its agent) ends with its turn; a wait that gave up leaves it, to wait again.
    if (flags.session === undefined && !flags.keep) await closeQuietly(turns, sessionId, io.stderr);
  });

  waitOptions(
    program
      .command('wait')
      .description('wait for a prompt to settle and print its result')
      .argument('<session>', SESSION)
      .argument('<prompt>', 'the prompt id'),
  ).action(async (sessionId: string, promptId: string, flags: ClientFlags & WaitFlags, command: Command) => {
    run.code = exitCodeOf(await waitAndPrint(waitIo, client(flags), sessionId, promptId, flags, callerOf(flags, command)));
  });

  clientOptions(
    program
      .command('status')
      .description('print the status of a prompt, or of the current turn')
      .argument('<session>', SESSION)
      .argument('[prompt]', 'the prompt id (none: the current turn)'),
  ).action(async (sessionId: string, promptId: string | undefined, flags: ClientFlags, command: Command) => {
    const turns = client(flags);
    const status = promptId ? await turns.getTurn(sessionId, promptId) : await turns.getCurrent(sessionId);
    if (flags.json) return void io.stdout.write(`${JSON.stringify(status)}\n`);
    const result = 'resultText' in status && status.resultText !== undefined ? `\n${status.resultText}` : '';
    io.stdout.write(`${shownState(status)}${'promptId' in status ? ` ${status.promptId}` : ''}${result}\n`);
    for (const line of approvalLines(sessionId, status, callerOf(flags, command))) io.stdout.write(`${line}\n`);
  });

  clientOptions(
    program
      .command('turns')
      .description("list a session's turns, newest first (with --json, one status per line)")
      .argument('<session>', SESSION)
      .addOption(new Option('--state <states>', 'only these states, a comma list (e.g. running,error)').argParser(turnStates)),
    'print each status as one JSON line',
  ).action(async (sessionId: string, flags: ClientFlags & { state?: TurnState[] }, command: Command) => {
    for await (const page of client(flags).listTurns(sessionId, { state: flags.state, limit: 100 })) {
      for (const status of page.turns) {
        if (flags.json) io.stdout.write(`${JSON.stringify(status)}\n`);
        else
          for (const line of [turnLine(status), ...approvalLines(sessionId, status, callerOf(flags, command))])
            io.stdout.write(`${line}\n`);
      }
    }
  });

  clientOptions(
    program
      .command('close')
      .description('close a live session: its agent stops, its transcript stays (a load makes it live again)')
      .argument('<session>', SESSION),
  ).action(async (sessionId: string, flags: ClientFlags) => {
    await client(flags).closeSession(sessionId);
    io.stderr.write(`closed ${sessionId}\n`);
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
      run.code = EXIT.notFound;
    }
  });
}

/** Closes the session a one-shot prompt made; a failure is reported, and leaves the prompt's exit code as it is. */
async function closeQuietly(turns: TurnsClient, sessionId: string, stderr: NodeJS.WritableStream): Promise<void> {
  try {
    await turns.closeSession(sessionId);
  } catch (error) {
    stderr.write(`session ${sessionId} left live: ${(error as Error)?.message ?? String(error)} (nest-turn-status close ${sessionId})\n`);
  }
}

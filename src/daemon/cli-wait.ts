import type { SettledTurnStatus, TurnsClient } from '../client/index.js';
import { Progress, type Notes } from './cli-output.js';
import { PermissionAsker, type PermissionMode } from './permission-asker.js';
import type { CallerFlags } from './permission-choice.js';

/** Where `prompt --wait` and `wait` write, and read a y/N answer when stdin is a terminal. */
export interface WaitIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  stdin?: NodeJS.ReadableStream & { isTTY?: boolean };
  /** Where the client's own lines go (a `429` waited out): above the progress line while it is drawn. */
  notes?: Notes;
}

/** The flags of the commands that wait for a turn. */
export interface WaitFlags {
  json?: boolean;
  timeout?: string;
  approve?: boolean;
  deny?: boolean;
}

/** How the agent's requests are answered: see {@link PermissionMode}. */
function permissionMode(flags: WaitFlags, io: WaitIo): PermissionMode {
  if (flags.approve) return 'allow';
  if (flags.deny) return 'deny';
  return io.stdin?.isTTY && io.stderr.isTTY ? 'ask' : 'leave';
}

/**
 * Waits for the prompt with the live progress on stderr, answering its
 * permission requests as the flags say, then prints the result (or the
 * status, `--json`) on stdout and an error's message on stderr. `caller`:
 * what a request's suggested `permissions` command repeats.
 */
export async function waitAndPrint(
  io: WaitIo,
  turns: TurnsClient,
  sessionId: string,
  promptId: string,
  flags: WaitFlags,
  caller: CallerFlags,
): Promise<SettledTurnStatus> {
  const progress = new Progress(io.stderr);
  if (io.notes) io.notes.progress = progress;
  const asker = new PermissionAsker(turns, permissionMode(flags, io), progress, caller, io.stdin);
  try {
    const status = await turns.waitForTurn(sessionId, promptId, {
      timeoutMs: Number(flags.timeout),
      onUpdate: (s) => progress.update(s),
      onPermissionRequest: asker.listener,
    });
    await asker.idle(); // the wait's end let every question go: their lines come before the result
    progress.done();
    if (flags.json) io.stdout.write(`${JSON.stringify(status)}\n`);
    else if ('resultText' in status && status.resultText !== undefined) io.stdout.write(`${status.resultText}\n`);
    if (status.state === 'error') io.stderr.write(`error: ${status.error.message}${status.error.code ? ` (${status.error.code})` : ''}\n`);
    return status;
  } finally {
    progress.done();
    if (io.notes) io.notes.progress = undefined;
  }
}

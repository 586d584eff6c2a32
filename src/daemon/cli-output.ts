import { Command, CommanderError } from 'commander';
import type { TurnStatus } from '../client/index.js';

// What the client commands of the command line print besides a status: a turn's line, the live progress, an unknown command's message.

/** One turn of `turns`: state, promptId, the prompt's first line; a running one's activity, a failed one's error code. */
export function turnLine(status: TurnStatus): string {
  if (status.state === 'idle') return 'idle';
  const text = (status.promptText ?? '').split('\n')[0]!.slice(0, 60);
  let detail = '';
  if (status.state === 'running' && status.activity) {
    const { events, toolCalls, lastEventAt, lastTool } = status.activity;
    detail = ` [${events} updates, ${toolCalls} tool calls, last ${new Date(lastEventAt).toISOString()}${lastTool ? `: ${lastTool}` : ''}]`;
  } else if (status.state === 'error') detail = ` [${status.error.code ?? status.error.message}]`;
  return `${status.state}\t${status.promptId}\t${text}${detail}`;
}

/** Shows the state and elapsed time while waiting: a live line on a TTY, plain lines otherwise. */
export class Progress {
  private readonly started = Date.now();
  private last = '';
  private timer?: NodeJS.Timeout;

  constructor(private readonly stderr: NodeJS.WritableStream & { isTTY?: boolean }) {}

  update(status: TurnStatus): void {
    if (status.state === this.last) return;
    this.last = status.state;
    if (this.stderr.isTTY) {
      this.draw();
      this.timer ??= setInterval(() => this.draw(), 1_000);
      this.timer.unref?.();
    } else {
      this.stderr.write(`${status.state} ${this.elapsed()}\n`);
    }
  }

  /** Ends the live line (once). */
  done(): void {
    clearInterval(this.timer);
    if (this.stderr.isTTY && this.last) this.stderr.write('\n');
    this.last = '';
  }

  private draw(): void {
    this.stderr.write(`\r\u001b[2K${this.last} ${this.elapsed()}`);
  }

  private elapsed(): string {
    return `${((Date.now() - this.started) / 1000).toFixed(1)}s`;
  }
}

/**
 * Commander's message for an unknown command, with its suggestion, on one line. The default command (`serve`)
 * takes every word commander does not know, so the message is asked of a copy of the command list.
 */
export function unknownCommand(program: Command, word: string): string {
  const names = new Command()
    .exitOverride()
    .showSuggestionAfterError()
    .configureOutput({ writeErr: () => undefined });
  for (const command of program.commands) names.command(command.name()).aliases(command.aliases());
  try {
    names.parse([word], { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) return error.message.replaceAll('\n', ' ').trim();
  }
  return `error: unknown command '${word}'`;
}

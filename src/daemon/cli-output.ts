import { Command, CommanderError } from 'commander';
import type { PendingInteraction, RateLimitWait, TurnStatus } from '../client/index.js';

// What the client commands of the command line print besides a status: a turn's line, a permission request, the live
// progress, an unknown command's message.

/** One turn of `turns`: state, promptId, the prompt's first line; a running one's activity, a failed one's error code. */
export function turnLine(status: TurnStatus): string {
  if (status.state === 'idle') return 'idle';
  const text = (status.promptText ?? '').split('\n')[0]!.slice(0, 60);
  let detail = '';
  if (status.state === 'running' && status.activity) {
    const { events, toolCalls, lastEventAt, lastTool } = status.activity;
    detail = ` [${events} updates, ${toolCalls} tool calls, last ${new Date(lastEventAt).toISOString()}${lastTool ? `: ${lastTool}` : ''}]`;
  } else if (status.state === 'error') detail = ` [${status.error.code ?? status.error.message}]`;
  if (status.state === 'running' && status.pendingInteractions?.length) detail += ' [waits on approval]';
  return `${status.state}\t${status.promptId}\t${text}${detail}`;
}

/**
 * Text the agent wrote, safe on a terminal: line breaks and tabs become spaces, any other control or format
 * character (an escape sequence, a bidi override) a `?`, and past `max` code units it is cut with `…`.
 */
export function printable(text: string, max = 200): string {
  const shown = text.replace(/[\t\n\r]/g, ' ').replace(/[\p{Cc}\p{Cf}]/gu, '?');
  return shown.length > max ? `${shown.slice(0, max - 1)}…` : shown;
}

/** What a permission request asks, in a few words: the tool's kind and its title. */
export function describeRequest(request: PendingInteraction): string {
  const { type, title } = request.action;
  return `${type ? `${printable(type, 40)} ` : ''}"${printable(title ?? '(untitled)')}"`;
}

/** The verb of each tool kind an agent names (ACP's `ToolKind`); any other asks to use the tool. */
const VERB_OF_KIND: Readonly<Record<string, string>> = {
  read: 'read',
  edit: 'edit',
  delete: 'delete',
  move: 'move',
  search: 'search',
  execute: 'execute',
  fetch: 'fetch',
};

/** What the agent asks to do, as a sentence goes on: `execute "ls -la"`, `edit "src/a.ts"`, `use "Think"`. */
export function askedAction(request: PendingInteraction): string {
  const verb = VERB_OF_KIND[request.action.type ?? ''] ?? 'use';
  return `${verb} "${printable(request.action.title ?? '(untitled)')}"`;
}

/** The state a waiting command shows: a running turn that waits on approval says so. */
export function shownState(status: TurnStatus): string {
  return status.state === 'running' && status.pendingInteractions?.length ? 'running, waits on approval' : status.state;
}

/** One request of `permissions`: its id, what it asks, and its options (id and kind). */
export function permissionLine(request: PendingInteraction): string {
  const options = request.options.map((option) => `${printable(option.optionId, 80)}(${printable(option.kind, 40)})`).join(' ');
  return `${printable(request.requestId, 80)}\t${describeRequest(request)}\t${options}`;
}

/** Shows the state and elapsed time while waiting: a live line on a TTY, plain lines otherwise. */
export class Progress {
  private readonly started = Date.now();
  private last = '';
  private timer?: NodeJS.Timeout;
  /** A question has the terminal: the live line waits. */
  private paused = false;

  constructor(readonly stderr: NodeJS.WritableStream & { isTTY?: boolean }) {}

  update(status: TurnStatus): void {
    const state = shownState(status);
    if (state === this.last) return;
    this.last = state;
    if (this.stderr.isTTY) this.live();
    else this.stderr.write(`${state} ${this.elapsed()}\n`);
  }

  /** Writes a line of its own; on a terminal above the live line, which is drawn again below it. */
  note(line: string): void {
    if (!this.stderr.isTTY) return void this.stderr.write(`${line}\n`);
    this.stderr.write(`\r\u001b[2K${line}\n`);
    this.live();
  }

  /** Takes the live line away while `task` runs (a question on the terminal), then draws it again. */
  async pause<T>(task: () => Promise<T>): Promise<T> {
    this.paused = true;
    clearInterval(this.timer);
    this.timer = undefined;
    if (this.stderr.isTTY) this.stderr.write('\r\u001b[2K');
    try {
      return await task();
    } finally {
      this.paused = false;
      if (this.stderr.isTTY) this.live();
    }
  }

  /** Ends the live line (once). */
  done(): void {
    clearInterval(this.timer);
    if (this.stderr.isTTY && this.last && !this.paused) this.stderr.write('\n');
    this.last = '';
  }

  /** Draws the live line now and every second, unless a question has the terminal. */
  private live(): void {
    if (this.paused || !this.last) return;
    this.draw();
    this.timer ??= setInterval(() => this.draw(), 1_000);
    this.timer.unref?.();
  }

  private draw(): void {
    this.stderr.write(`\r\u001b[2K${this.last} ${this.elapsed()}`);
  }

  private elapsed(): string {
    return `${((Date.now() - this.started) / 1000).toFixed(1)}s`;
  }
}

/** What the command line says when the client waits out a `429` (docs/operating.md#rate-limits). */
export function rateLimitedLine(wait: RateLimitWait): string {
  const tier = wait.tier ? ` (${wait.tier} budget)` : '';
  return `rate limited${tier}: waiting ${(wait.retryAfterMs / 1000).toFixed(1)}s before ${wait.method} ${wait.path} again`;
}

/** Where a line of the client's own goes: above the live progress line while a wait draws one, else a line of stderr. */
export class Notes {
  /** The progress of the wait under way, if any. */
  progress?: Progress;

  constructor(private readonly stderr: NodeJS.WritableStream) {}

  write(line: string): void {
    if (this.progress) this.progress.note(line);
    else this.stderr.write(`${line}\n`);
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

import { once } from 'node:events';
import { createInterface } from 'node:readline/promises';
import {
  TurnsApiError,
  type PendingInteraction,
  type PermissionOutcome,
  type PermissionRequestContext,
  type TurnsClient,
} from '../client/index.js';
import { askedAction, describeRequest, printable, type Progress } from './cli-output.js';
import { answerCommand, outcomeFor, type CallerFlags, type PermissionVerdict } from './permission-choice.js';

/**
 * How `prompt --wait` and `wait` answer the agent's requests: `ask` on a
 * terminal (y/N); `allow` or `deny` as `--approve`/`--deny` said; `leave` —
 * no terminal, no flag — reports each request and leaves it to another
 * client (docs/decisions.md).
 */
export type PermissionMode = 'ask' | PermissionVerdict | 'leave';

/** Only `y` or `yes` allows: anything else, an empty line or the end of the input, is the default no. */
const YES = /^\s*y(es)?\s*$/i;

/**
 * Answers the permission requests of the turn the command line waits for,
 * one question at a time on a terminal, each line on stderr.
 */
export class PermissionAsker {
  /** The questions, one after the other. */
  private turn: Promise<void> = Promise.resolve();

  constructor(
    private readonly client: TurnsClient,
    private readonly mode: PermissionMode,
    private readonly progress: Progress,
    /** What the `permissions` command a request's line suggests must repeat. */
    private readonly caller: CallerFlags,
    private readonly stdin?: NodeJS.ReadableStream,
  ) {}

  /** `onPermissionRequest` of the wait. */
  readonly listener = (request: PendingInteraction, context: PermissionRequestContext): Promise<void> => {
    const answered = this.turn.then(() => this.answer(request, context));
    this.turn = answered.catch(() => undefined);
    return answered;
  };

  /** Resolves once every request reported so far is answered or let go: its lines are written. */
  async idle(): Promise<void> {
    let last: Promise<void>;
    do {
      last = this.turn;
      await last;
    } while (last !== this.turn);
  }

  private async answer(request: PendingInteraction, { sessionId, signal }: PermissionRequestContext): Promise<void> {
    const id = printable(request.requestId, 80);
    if (signal.aborted) return;
    const verdict = this.mode === 'ask' ? await this.ask(request, signal) : this.mode === 'leave' ? undefined : this.mode;
    if (signal.aborted) return;
    const outcome = verdict && outcomeFor(request, verdict);
    if (!outcome) {
      // Only --approve can fail to decide: it never grants more than allow_once.
      const why = verdict === 'allow' ? ', with no allow_once option, so --approve leaves it' : '';
      const hint = answerCommand(sessionId, request, this.caller);
      return this.progress.note(`permission ${id}: the agent asks to ${askedAction(request)}${why}; it waits for an answer (${hint})`);
    }
    try {
      await this.client.respondToPermission(sessionId, request.requestId, outcome);
      this.progress.note(
        `permission ${id}: ${verdict === 'allow' ? 'allowed' : 'denied'} ${describeRequest(request)} (${shownOutcome(outcome)})`,
      );
    } catch (error) {
      // Another client answered first, the daemon's policy kept this one out: the wait goes on.
      if (!(error instanceof TurnsApiError)) throw error;
      this.progress.note(`permission ${id}: not answered: ${error.message}`);
    }
  }

  /** y/N on the terminal, until the request is no longer pending; undefined when there is nothing to ask. */
  private async ask(request: PendingInteraction, signal: AbortSignal): Promise<PermissionVerdict | undefined> {
    if (!this.stdin || !outcomeFor(request, 'allow')) return undefined;
    const input = this.stdin;
    return this.progress.pause(async () => {
      const lines = createInterface({ input, output: this.progress.stderr, terminal: false });
      try {
        this.progress.note(`permission ${printable(request.requestId, 80)}: the agent asks to ${askedAction(request)}`);
        const answer = lines.question('allow once? [y/N] ', { signal }).catch(() => '');
        const reply = await Promise.race([answer, once(lines, 'close').then(() => '')]);
        // The note takes the question's line (readline ends an aborted question's line itself).
        if (signal.aborted) this.progress.note(`permission ${printable(request.requestId, 80)}: no longer pending`);
        return YES.test(reply) ? 'allow' : 'deny';
      } finally {
        lines.close();
      }
    });
  }
}

function shownOutcome(outcome: PermissionOutcome): string {
  return outcome.outcome === 'selected' ? printable(outcome.optionId, 80) : 'cancelled';
}

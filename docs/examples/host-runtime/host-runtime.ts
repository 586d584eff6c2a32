import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { limitTurnFields, TerminalOverlay, type SettledTurnStatus, type TurnError } from 'nest-turn-status';
import { HostAgent } from './host-agent.js';

/** An admitted prompt while it is queued or running. */
export interface HostPrompt {
  readonly promptId: string;
  readonly text: string;
  readonly clientId?: string;
  readonly queuedAt: number;
  startedAt?: number;
  readonly abort: AbortController;
  deadline?: NodeJS.Timeout;
}

/** One session: the client ids allowed on it, its FIFO, what it recorded, who waits for a change. */
export interface HostSession {
  readonly clientIds: ReadonlySet<string>;
  running?: HostPrompt;
  queued: HostPrompt[];
  /** The session's transcript: each answer the agent gave, oldest first, as persisted (no `queuedAt`). */
  readonly records: SettledTurnStatus[];
  readonly listeners: Set<() => void>;
}

type Outcome = { state: 'completed'; resultText: string } | { state: 'cancelled' } | { state: 'error'; error: TurnError };

const DEADLINE_EXCEEDED: TurnError = { message: 'Prompt deadline exceeded', code: 'prompt_deadline_exceeded' };

/**
 * A host's own agent runtime, and nothing of HTTP polling: sessions with the
 * client ids allowed on them, a FIFO of prompts per session run one at a
 * time by the {@link HostAgent}, a deadline per prompt, and a transcript of
 * the agent's answers. Every terminal status goes to nest-turn-status's
 * `TerminalOverlay`, which keeps the overlay's rules (the first terminal of a
 * prompt wins; what polls write back; the newest entry).
 */
@Injectable()
export class HostRuntime {
  /** Fed with each terminal status; `HostBridge` hands it to `TurnsModule`. */
  readonly overlay = new TerminalOverlay();
  /** How long a prompt may run before it ends in `error` (`prompt_deadline_exceeded`). */
  deadlineMs = 60_000;
  private readonly sessions = new Map<string, HostSession>();

  constructor(private readonly agent: HostAgent) {}

  session(sessionId: string): HostSession | undefined {
    return this.sessions.get(sessionId);
  }

  /** Opens a session that the given client ids may use; its id. */
  openSession(clientIds: string[]): string {
    const sessionId = randomUUID();
    this.sessions.set(sessionId, { clientIds: new Set(clientIds), queued: [], records: [], listeners: new Set() });
    return sessionId;
  }

  /** Queues a prompt (it runs when the ones before it are done); its id. */
  admit(sessionId: string, text: string, clientId?: string): string {
    const session = this.sessions.get(sessionId);
    if (!session) throw new Error(`no session ${sessionId}`);
    const prompt: HostPrompt = { promptId: randomUUID(), text, clientId, queuedAt: Date.now(), abort: new AbortController() };
    session.queued.push(prompt);
    this.changed(session);
    this.runNext(sessionId, session);
    return prompt.promptId;
  }

  /** The prompt's deadline passed: it ends in `error` and the next one starts; the agent is asked to stop. */
  expire(sessionId: string, promptId: string): void {
    const session = this.sessions.get(sessionId);
    const prompt = session?.running?.promptId === promptId ? session.running : session?.queued.find((p) => p.promptId === promptId);
    if (!prompt) return;
    this.settle(sessionId, prompt, { state: 'error', error: DEADLINE_EXCEEDED });
    prompt.abort.abort();
  }

  /** The session is gone, with what the overlay holds for it; its prompts are stopped. */
  closeSession(sessionId: string): void {
    const session = this.sessions.get(sessionId);
    if (!session) return;
    this.sessions.delete(sessionId);
    this.overlay.forget(sessionId);
    for (const prompt of [...session.queued, session.running]) {
      clearTimeout(prompt?.deadline);
      prompt?.abort.abort();
    }
    this.changed(session);
  }

  /** Calls `listener` after each change to the session; the returned function stops it. */
  watch(sessionId: string, listener: () => void): (() => void) | undefined {
    const listeners = this.sessions.get(sessionId)?.listeners;
    listeners?.add(listener);
    return listeners && (() => listeners.delete(listener));
  }

  private runNext(sessionId: string, session: HostSession): void {
    if (session.running || session.queued.length === 0) return;
    const prompt = session.queued.shift()!;
    session.running = prompt;
    prompt.startedAt = Date.now();
    prompt.deadline = setTimeout(() => this.expire(sessionId, prompt.promptId), this.deadlineMs);
    prompt.deadline.unref();
    this.changed(session);
    this.agent.reply(prompt.text, prompt.abort.signal).then(
      (resultText) => this.answered(sessionId, prompt, { state: 'completed', resultText }),
      (error: unknown) =>
        this.answered(
          sessionId,
          prompt,
          prompt.abort.signal.aborted ? { state: 'cancelled' } : { state: 'error', error: { message: String(error) } },
        ),
    );
  }

  /** The agent is done: its answer goes to the transcript, and ends the prompt unless a deadline or close did first. */
  private answered(sessionId: string, prompt: HostPrompt, outcome: Outcome): void {
    const persisted: SettledTurnStatus = { ...this.terminal(sessionId, prompt, outcome) };
    delete persisted.queuedAt; // admission time lives in memory only: a persisted-only answer has none
    this.sessions.get(sessionId)?.records.push(persisted);
    this.settle(sessionId, prompt, outcome);
  }

  /**
   * Publishes the prompt's terminal and takes it out of the live view, in one
   * step; then wakes the session's listeners. The overlay keeps the first
   * terminal: a later one (the agent answering after its deadline) changes nothing.
   */
  private settle(sessionId: string, prompt: HostPrompt, outcome: Outcome): void {
    const session = this.sessions.get(sessionId);
    if (!session || !this.overlay.publish(this.terminal(sessionId, prompt, outcome))) return;
    clearTimeout(prompt.deadline);
    if (session.running === prompt) session.running = undefined;
    else session.queued = session.queued.filter((queued) => queued !== prompt);
    this.changed(session);
    this.runNext(sessionId, session);
  }

  /** The terminal status of a prompt, within the wire limits. */
  private terminal(sessionId: string, prompt: HostPrompt, outcome: Outcome): SettledTurnStatus {
    const { promptId, text, clientId, queuedAt, startedAt } = prompt;
    const fields = limitTurnFields({
      promptId,
      promptText: text,
      originatorClientId: clientId,
      ...(outcome.state === 'completed' && { stopReason: 'end_turn', resultText: outcome.resultText }),
      ...(outcome.state === 'error' && { error: outcome.error }),
    });
    const timing = { queuedAt, ...(startedAt !== undefined && { startedAt }), endedAt: Date.now() };
    if (outcome.state === 'error') return { sessionId, state: 'error', ...fields, error: fields.error!, ...timing };
    return { sessionId, state: outcome.state, ...fields, ...timing };
  }

  private changed(session: HostSession): void {
    for (const listener of [...session.listeners]) listener();
  }
}

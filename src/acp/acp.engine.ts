import { client, ndJsonStream, PROTOCOL_VERSION, type ClientConnection } from '@agentclientprotocol/sdk';
import { Logger } from '@nestjs/common';
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { Readable, Writable } from 'node:stream';
import { TURNS_CHANNELS } from '../telemetry/turns-channels.js';
import { mapAcpUpdate } from './acp-update-mapper.js';
import {
  AgentEngine,
  type EngineSession,
  type EngineSessionContext,
  type EngineTurnRequest,
  type EngineTurnResult,
  type EngineUpdate,
  type EngineUpdateWire,
} from '../engines/agent-engine.js';

/** Variables of the daemon that an agent process must not see. */
const WITHHELD_ENV = ['TURNS_TOKEN'];

/** stderr lines kept per agent for a start failure's reason. */
const STDERR_TAIL_LINES = 20;
/** stderr lines logged per session per window, so a chatty agent cannot flood the log. */
const STDERR_LINES_PER_WINDOW = 50;
const STDERR_WINDOW_MS = 10_000;

/** An agent's stderr in the daemon log: prefixed with the session id, rate-limited. */
class AgentLog {
  private windowStart = 0;
  private count = 0;
  private dropped = 0;

  constructor(
    private readonly logger: Logger,
    private readonly sessionId: string,
    private readonly now: () => number = Date.now,
  ) {}

  line(text: string): void {
    const now = this.now();
    if (now - this.windowStart >= STDERR_WINDOW_MS) {
      if (this.dropped > 0) this.logger.warn(`[agent ${this.sessionId}] ${this.dropped} stderr lines dropped`);
      this.windowStart = now;
      this.count = 0;
      this.dropped = 0;
    }
    if (this.count >= STDERR_LINES_PER_WINDOW) {
      this.dropped += 1;
      return;
    }
    this.count += 1;
    this.logger.warn(`[agent ${this.sessionId}] ${text.slice(0, 1_000)}`);
  }
}

/** One running agent process and its ACP connection. */
class AgentProcess {
  readonly exited: Promise<void>;
  private alive = true;
  /** We ended it (closed, replaced or a failed start): its exit is no news. */
  killed = false;
  /** How it ended, for the log: `exit code 3`, `signal SIGKILL`. */
  exit = 'not yet';

  private constructor(
    private readonly child: ChildProcess,
    readonly connection: ClientConnection,
    private readonly updates: Map<string, (update: EngineUpdate) => void>,
  ) {
    // 'close' comes after the stdio streams end, so every stderr line is read by then.
    this.exited = new Promise((resolve) =>
      child.once('close', (code, signal) => {
        this.exit = signal ? `signal ${signal}` : `exit code ${code}`;
        resolve();
      }),
    );
    // The connection ends when the agent's stdout does; nobody awaits `closed` itself.
    connection.closed.catch(() => undefined);
    void this.exited.then(() => {
      this.alive = false;
      connection.close(new Error('agent process exited'));
    });
  }

  /** The last lines the agent wrote to stderr: the reason given when it fails to start. */
  readonly stderrTail: string[] = [];
  /** Settles once every stderr line has been read. */
  stderrRead: Promise<void> = Promise.resolve();

  static spawn(command: string, cwd: string, updates: Map<string, (update: EngineUpdate) => void>, log: AgentLog): AgentProcess {
    const env = { ...process.env };
    for (const name of WITHHELD_ENV) delete env[name];
    // `exec` so that signals reach the agent itself, not an intermediate shell.
    const child = spawn('/bin/sh', ['-c', `exec ${command}`], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    child.on('error', () => undefined);
    const app = client()
      .onNotification('session/update', ({ params }) => {
        const update = mapAcpUpdate(params.update as Parameters<typeof mapAcpUpdate>[0]);
        // The stream carries the agent's own update; the mapped one feeds the answer and the transcript.
        if (update) updates.get(params.sessionId)?.({ ...update, wire: params.update as EngineUpdateWire });
      })
      // Headless: allow once where the agent offers it, else decline.
      .onRequest('session/request_permission', ({ params }) => {
        const allow = params.options.find((o) => o.kind === 'allow_once') ?? params.options.find((o) => o.kind === 'allow_always');
        return { outcome: allow ? { outcome: 'selected' as const, optionId: allow.optionId } : { outcome: 'cancelled' as const } };
      });
    const stream = ndJsonStream(
      Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>,
      Readable.toWeb(child.stdout!) as unknown as ReadableStream<Uint8Array>,
    );
    const agent = new AgentProcess(child, app.connect(stream), updates);
    const lines = createInterface({ input: child.stderr! });
    lines.on('line', (line) => {
      agent.stderrTail.push(line);
      if (agent.stderrTail.length > STDERR_TAIL_LINES) agent.stderrTail.shift();
      log.line(line);
    });
    agent.stderrRead = new Promise((resolve) => lines.once('close', () => resolve()));
    return agent;
  }

  get isAlive(): boolean {
    return this.alive && !this.connection.signal.aborted;
  }

  kill(): void {
    // One whose connection already ended is dying by itself (the next prompt replaces it): that is news.
    if (this.isAlive) this.killed = true;
    if (this.alive) this.child.kill('SIGTERM');
  }
}

/**
 * An engine session backed by one ACP agent process, spawned in the
 * session's workspace. A process that dies fails the running prompt (its
 * request rejects) and is replaced, with a new ACP session, for the next one.
 */
class AcpEngineSession implements EngineSession {
  private process?: AgentProcess;
  private acpSessionId?: string;
  private readonly updates = new Map<string, (update: EngineUpdate) => void>();
  private resume: boolean;

  private readonly log: AgentLog;

  constructor(
    private readonly command: string,
    private readonly context: EngineSessionContext,
    private readonly logger: Logger,
  ) {
    this.resume = context.resume;
    this.log = new AgentLog(logger, context.sessionId);
  }

  async prompt({ prompt, signal, onUpdate }: EngineTurnRequest): Promise<EngineTurnResult> {
    const { connection, sessionId } = await this.ready();
    if (signal.aborted) return { stopReason: 'cancelled' };
    this.updates.set(sessionId, onUpdate);
    const cancel = () => void connection.agent.notify('session/cancel', { sessionId }).catch(() => undefined);
    signal.addEventListener('abort', cancel, { once: true });
    try {
      const response = await connection.agent.request('session/prompt', {
        sessionId,
        prompt: prompt.map((block) => ({ ...block }) as never),
      });
      return { stopReason: response.stopReason };
    } catch (error) {
      if (!this.process?.isAlive) throw Object.assign(new Error('Agent process exited'), { code: 'agent_process_exited' });
      throw error;
    } finally {
      signal.removeEventListener('abort', cancel);
      this.updates.delete(sessionId);
    }
  }

  async close(): Promise<void> {
    this.process?.kill();
    await this.process?.exited;
    this.process = undefined;
  }

  /** A live process with an ACP session, starting (or restarting) one if needed. */
  private async ready(): Promise<{ connection: ClientConnection; sessionId: string }> {
    if (this.process?.isAlive && this.acpSessionId) return { connection: this.process.connection, sessionId: this.acpSessionId };
    this.process?.kill();
    const agent = AgentProcess.spawn(this.command, this.context.cwd, this.updates, this.log);
    this.process = agent;
    const sessionId = this.context.sessionId;
    TURNS_CHANNELS.agentProcess.publish({ event: 'start', sessionId });
    let started = false;
    void agent.exited.then(() => {
      TURNS_CHANNELS.agentProcess.publish({ event: 'exit', sessionId });
      // A start failure is logged as such; a running agent that ends by itself died.
      if (started && !agent.killed) {
        this.logger.warn(
          `agent of session ${sessionId} died (${agent.exit}); a running prompt fails agent_process_exited, the next starts a new agent`,
        );
      }
    });
    let init;
    try {
      init = await agent.connection.agent.request('initialize', {
        protocolVersion: PROTOCOL_VERSION,
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
      });
    } catch (error) {
      agent.kill();
      await agent.exited;
      await agent.stderrRead;
      TURNS_CHANNELS.agentProcess.publish({ event: 'start_failure', sessionId });
      throw this.startFailure(agent, error);
    }
    try {
      this.acpSessionId = await this.openAcpSession(agent.connection, Boolean(init.agentCapabilities?.loadSession));
      started = true;
    } catch (error) {
      agent.kill();
      throw error;
    }
    return { connection: agent.connection, sessionId: this.acpSessionId };
  }

  /** `agent_start_failed`, with what the agent said on stderr (e.g. `command not found`). */
  private startFailure(agent: AgentProcess, cause: unknown): Error {
    const said = agent.stderrTail.filter((line) => line.trim() !== '').at(-1);
    const reason = said ?? (cause instanceof Error ? cause.message : 'the agent exited');
    this.logger.error(`agent for session ${this.context.sessionId} failed to start: ${reason}`);
    return Object.assign(new Error(`Agent failed to start: ${reason}`), { code: 'agent_start_failed' });
  }

  private async openAcpSession(connection: ClientConnection, canLoad: boolean): Promise<string> {
    const { cwd, sessionId } = this.context;
    if (this.resume && canLoad) {
      this.resume = false;
      try {
        await connection.agent.request('session/load', { sessionId, cwd, mcpServers: [] });
        return sessionId;
      } catch {
        this.logger.warn(`agent could not load session ${sessionId}; starting a new one`);
      }
    }
    const created = await connection.agent.request('session/new', { cwd, mcpServers: [] });
    return created.sessionId;
  }
}

/**
 * Drives any Agent Client Protocol agent command (e.g. `qwen --acp`), one process per session.
 *
 * @publicApi
 */
export class AcpEngine extends AgentEngine {
  readonly name = 'acp';
  private readonly logger = new Logger('AcpEngine');

  constructor(private readonly command: string) {
    super();
  }

  async openSession(context: EngineSessionContext): Promise<EngineSession> {
    return new AcpEngineSession(this.command, context, this.logger);
  }
}

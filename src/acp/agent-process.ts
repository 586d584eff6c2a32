import { client, ndJsonStream, type ClientConnection } from '@agentclientprotocol/sdk';
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { Readable, Writable } from 'node:stream';
import {
  type EnginePermissionOutcome,
  type EnginePermissionRequest,
  type EngineUpdate,
  type EngineUpdateWire,
  PERMISSION_CANCELLED,
} from '../engines/agent-engine.js';
import { acpUsageOf, mapAcpUpdate } from './acp-update-mapper.js';
import type { AgentStderrLog } from './agent-stderr-log.js';

/** Where an ACP session's running prompt takes the agent's updates and requests for approval. */
export interface AcpTurnHandlers {
  onUpdate(update: EngineUpdate): void;
  /** What an update says of usage (see {@link acpUsageOf}), after the update itself. */
  onUsage?(usage: NonNullable<ReturnType<typeof acpUsageOf>>): void;
  requestPermission?(request: EnginePermissionRequest): Promise<EnginePermissionOutcome>;
}

/** Whether an agent's `session/request_permission` has what a client is shown and chooses from. */
export function isPermissionRequest(params: unknown): params is EnginePermissionRequest {
  const { toolCall, options } = (params ?? {}) as Partial<Record<'toolCall' | 'options', unknown>>;
  return (
    typeof toolCall === 'object' &&
    toolCall !== null &&
    Array.isArray(options) &&
    options.every((option: unknown) => {
      const { optionId, kind } = (option ?? {}) as Record<string, unknown>;
      return typeof optionId === 'string' && typeof kind === 'string';
    })
  );
}

/** Variables of the daemon that an agent process must not see. */
const WITHHELD_ENV = ['TURNS_TOKEN'];

/** stderr lines kept per agent for a start failure's reason. */
const STDERR_TAIL_LINES = 20;

/** One running agent process and its ACP connection. */
export class AgentProcess {
  readonly exited: Promise<void>;
  private alive = true;
  /** We ended it (closed, replaced or a failed start): its exit is no news. */
  killed = false;
  /** How it ended, for the log: `exit code 3`, `signal SIGKILL`. */
  exit = 'not yet';

  private constructor(
    private readonly child: ChildProcess,
    readonly connection: ClientConnection,
    private readonly turns: Map<string, AcpTurnHandlers>,
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

  static spawn(command: string, cwd: string, turns: Map<string, AcpTurnHandlers>, log: AgentStderrLog): AgentProcess {
    const env = { ...process.env };
    for (const name of WITHHELD_ENV) delete env[name];
    // `exec` so that signals reach the agent itself, not an intermediate shell.
    const child = spawn('/bin/sh', ['-c', `exec ${command}`], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    child.on('error', () => undefined);
    const app = client()
      .onNotification('session/update', ({ params }) => {
        const update = mapAcpUpdate(params.update as Parameters<typeof mapAcpUpdate>[0]);
        const turn = turns.get(params.sessionId);
        // The stream carries the agent's own update; the mapped one feeds the answer and the transcript.
        if (update) turn?.onUpdate({ ...update, wire: params.update as EngineUpdateWire });
        const usage = acpUsageOf(params.update as Parameters<typeof acpUsageOf>[0]);
        if (usage) turn?.onUsage?.(usage);
      })
      .onRequest('session/request_permission', async ({ params }) => {
        const ask = turns.get(params.sessionId)?.requestPermission;
        // No turn (or no runtime) to ask: refused, as nothing runs unapproved (docs/permissions.md).
        if (!ask) return { outcome: PERMISSION_CANCELLED };
        if (!isPermissionRequest(params)) {
          log.line('(daemon) the agent asked approval with no tool call or options: refused');
          return { outcome: PERMISSION_CANCELLED };
        }
        return { outcome: await ask(params) };
      });
    const stream = ndJsonStream(
      Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>,
      Readable.toWeb(child.stdout!) as unknown as ReadableStream<Uint8Array>,
    );
    const agent = new AgentProcess(child, app.connect(stream), turns);
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

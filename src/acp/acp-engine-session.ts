import { PROTOCOL_VERSION, type ClientConnection } from '@agentclientprotocol/sdk';
import type { Logger } from '@nestjs/common';
import type {
  EngineCloseOptions,
  EngineSession,
  EngineSessionContext,
  EngineTurnRequest,
  EngineTurnResult,
} from '../engines/agent-engine.js';
import { TURNS_CHANNELS } from '../telemetry/turns-channels.js';
import { AgentProcess, type AcpTurnHandlers } from './agent-process.js';
import { AgentStderrLog } from './agent-stderr-log.js';
import { readTurnTokens } from '../turns/rules/turn-usage.js';

/**
 * How long a close waits for the prompt it cancelled to end before it stops the agent: time for the
 * agent to read the `cancelled` answers to its requests for approval (docs/permissions.md) and end its turn.
 */
const CLOSE_GRACE_MS = 2_000;

/**
 * An engine session backed by one ACP agent process, spawned in the
 * session's workspace. A process that dies fails the running prompt (its
 * request rejects) and is replaced, with a new ACP session, for the next one.
 */
export class AcpEngineSession implements EngineSession {
  private process?: AgentProcess;
  private acpSessionId?: string;
  private readonly turns = new Map<string, AcpTurnHandlers>();
  /** The prompt under way, settled either way. */
  private running?: Promise<unknown>;
  private resume: boolean;
  /** The session's cumulative cost (ACP `usage_update.cost`, USD) as last reported: a turn's cost is its growth. */
  private sessionCostUsd = 0;

  private readonly log: AgentStderrLog;

  constructor(
    private readonly command: string,
    private readonly context: EngineSessionContext,
    private readonly logger: Logger,
  ) {
    this.resume = context.resume;
    this.log = new AgentStderrLog(logger, context.sessionId);
  }

  async prompt({ prompt, signal, onUpdate, onUsage, requestPermission }: EngineTurnRequest): Promise<EngineTurnResult> {
    const { connection, sessionId } = await this.ready();
    if (signal.aborted) return { stopReason: 'cancelled' };
    const costBefore = this.sessionCostUsd;
    const usage: AcpTurnHandlers['onUsage'] = (reported) => {
      if ('tokens' in reported) return onUsage?.({ kind: 'response', tokens: reported.tokens });
      this.sessionCostUsd = reported.sessionCostUsd;
      onUsage?.({ kind: 'cost', costUsd: Math.max(0, reported.sessionCostUsd - costBefore) });
    };
    this.turns.set(sessionId, { onUpdate, onUsage: usage, requestPermission });
    const cancel = () => void connection.agent.notify('session/cancel', { sessionId }).catch(() => undefined);
    signal.addEventListener('abort', cancel, { once: true });
    const request = connection.agent.request('session/prompt', {
      sessionId,
      prompt: prompt.map((block) => ({ ...block }) as never),
    });
    const running = (this.running = request.catch(() => undefined));
    try {
      const response = await request;
      // ACP's (unstable) PromptResponse.usage: the turn's total, which replaces the sum of its responses.
      const total = readTurnTokens((response as { usage?: unknown }).usage);
      if (total) onUsage?.({ kind: 'turn', tokens: total });
      return { stopReason: response.stopReason };
    } catch (error) {
      if (!this.process?.isAlive) throw Object.assign(new Error('Agent process exited'), { code: 'agent_process_exited' });
      throw error;
    } finally {
      signal.removeEventListener('abort', cancel);
      this.turns.delete(sessionId);
      if (this.running === running) this.running = undefined;
    }
  }

  /** Stops the agent; a prompt under way (its turn aborted first, by the bridge) gets a bounded grace to end. */
  async close({ immediate = false }: EngineCloseOptions = {}): Promise<void> {
    if (this.running && !immediate) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.running, new Promise((resolve) => (timer = setTimeout(resolve, CLOSE_GRACE_MS)))]);
      clearTimeout(timer);
    }
    this.process?.kill();
    await this.process?.exited;
    this.process = undefined;
  }

  /** A live process with an ACP session, starting (or restarting) one if needed. */
  private async ready(): Promise<{ connection: ClientConnection; sessionId: string }> {
    if (this.process?.isAlive && this.acpSessionId) return { connection: this.process.connection, sessionId: this.acpSessionId };
    this.process?.kill();
    const agent = AgentProcess.spawn(this.command, this.context.cwd, this.turns, this.log);
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

import { Logger } from '@nestjs/common';
import { join } from 'node:path';
import { AcpEngine } from './acp.engine.js';
import type { EngineUpdate } from '../engines/agent-engine.js';
import { TURNS_CHANNELS } from '../telemetry/turns-channels.js';
import { deferred } from '../../test/support/deferred.js';

const FIXTURE = `node ${join(__dirname, '..', '..', 'test', 'fixtures', 'acp-fixture-agent.mjs')}`;
const request = (text: string, onUpdate: (u: EngineUpdate) => void = () => undefined, signal = new AbortController().signal) => ({
  prompt: [{ type: 'text', text }],
  signal,
  onUpdate,
});

describe('AcpEngine', () => {
  it('fails a prompt with agent_start_failed and the reason when the command cannot start, and tries again for the next', async () => {
    const error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      const session = await new AcpEngine('/nonexistent/agent --acp').openSession({ sessionId: 's1', cwd: '/tmp', resume: false });
      const startFailed = { code: 'agent_start_failed', message: expect.stringMatching(/not found|No such file/) };
      await expect(session.prompt(request('hi'))).rejects.toMatchObject(startFailed);
      await expect(session.prompt(request('hi'))).rejects.toMatchObject(startFailed);
      await session.close();
      // The agent's stderr reached the daemon log, prefixed with the session id.
      expect(warn).toHaveBeenCalledWith(expect.stringMatching(/^\[agent s1\] .*(not found|No such file)/));
      expect(error).toHaveBeenCalledWith(expect.stringContaining('agent for session s1 failed to start'));
    } finally {
      error.mockRestore();
      warn.mockRestore();
    }
  });

  it('rate-limits an agent that floods stderr', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    try {
      // A shell writes each line before it exits (Node's process.exit could drop piped writes).
      const flood = `sh -c 'for i in $(seq 0 499); do echo "line $i" >&2; done; exit 1'`;
      const session = await new AcpEngine(flood).openSession({ sessionId: 's2', cwd: '/tmp', resume: false });
      await expect(session.prompt(request('hi'))).rejects.toMatchObject({
        code: 'agent_start_failed',
        message: expect.stringContaining('line 499'),
      });
      await session.close();
      const logged = warn.mock.calls.filter(([line]) => String(line).startsWith('[agent s2] line'));
      expect(logged).toHaveLength(50);
    } finally {
      error.mockRestore();
      warn.mockRestore();
    }
  });

  it('loads a resumed session when the agent supports it, and withholds TURNS_TOKEN from the agent', async () => {
    // The fixture sees the daemon's environment, less the token.
    process.env.TURNS_TOKEN = 'do-not-leak';
    try {
      const session = await new AcpEngine(FIXTURE).openSession({ sessionId: 'persisted-id', cwd: '/tmp', resume: true });
      const updates: EngineUpdate[] = [];
      await expect(session.prompt(request('env TURNS_TOKEN', (u) => updates.push(u)))).resolves.toEqual({ stopReason: 'end_turn' });
      expect(updates).toEqual([
        {
          kind: 'message',
          text: 'TURNS_TOKEN=<unset>',
          // The agent's own update rides along, for the event stream (docs/qwen-serve.md).
          wire: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'TURNS_TOKEN=<unset>' } },
        },
      ]);
      updates.length = 0;
      await session.prompt(request('whoami', (u) => updates.push(u)));
      expect(updates).toEqual([expect.objectContaining({ kind: 'message', text: 'persisted-id' })]);
      await session.close();
    } finally {
      delete process.env.TURNS_TOKEN;
    }
  });

  it('warns when the agent of a session dies, and only then (not when it is closed, nor for a start failure)', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const died = () => warn.mock.calls.map(([line]) => String(line)).filter((line) => / died /.test(line));
    try {
      // The dead agent's exit is published just before its line is written: wait for it, not for time.
      const exited = deferred<void>();
      const unsubscribe = TURNS_CHANNELS.agentProcess.subscribe((m) => m.event === 'exit' && m.sessionId === 's3' && exited.resolve());
      const session = await new AcpEngine(FIXTURE).openSession({ sessionId: 's3', cwd: '/tmp', resume: false });
      await expect(session.prompt(request('die now'))).rejects.toMatchObject({ code: 'agent_process_exited' });
      await exited.promise;
      unsubscribe();
      await expect(session.prompt(request('back again'))).resolves.toEqual({ stopReason: 'end_turn' });
      await session.close();
      expect(died()).toEqual([
        'agent of session s3 died (exit code 3); a running prompt fails agent_process_exited, the next starts a new agent',
      ]);
      const failing = await new AcpEngine('/nonexistent/agent --acp').openSession({ sessionId: 's4', cwd: '/tmp', resume: false });
      await expect(failing.prompt(request('hi'))).rejects.toMatchObject({ code: 'agent_start_failed' });
      await failing.close();
      expect(died()).toHaveLength(1);
    } finally {
      error.mockRestore();
      warn.mockRestore();
    }
  });
});

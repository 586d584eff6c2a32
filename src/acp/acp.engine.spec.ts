import { join } from 'node:path';
import { AcpEngine } from './acp.engine.js';
import type { EngineUpdate } from '../engines/agent-engine.js';

const FIXTURE = `node ${join(__dirname, '..', '..', 'test', 'fixtures', 'acp-fixture-agent.mjs')}`;
const request = (text: string, onUpdate: (u: EngineUpdate) => void = () => undefined, signal = new AbortController().signal) => ({
  prompt: [{ type: 'text', text }],
  signal,
  onUpdate,
});

describe('AcpEngine', () => {
  it('fails a prompt when the agent command cannot start, and tries again for the next', async () => {
    const session = await new AcpEngine('/nonexistent/agent --acp').openSession({ sessionId: 's', cwd: '/tmp', resume: false });
    await expect(session.prompt(request('hi'))).rejects.toBeDefined();
    await expect(session.prompt(request('hi'))).rejects.toBeDefined();
    await session.close();
  });

  it('loads a resumed session when the agent supports it, and withholds TURNS_TOKEN from the agent', async () => {
    // The fixture sees the daemon's environment, less the token.
    process.env.TURNS_TOKEN = 'do-not-leak';
    try {
      const session = await new AcpEngine(FIXTURE).openSession({ sessionId: 'persisted-id', cwd: '/tmp', resume: true });
      const updates: EngineUpdate[] = [];
      await expect(session.prompt(request('env TURNS_TOKEN', (u) => updates.push(u)))).resolves.toEqual({ stopReason: 'end_turn' });
      expect(updates).toEqual([{ kind: 'message', text: 'TURNS_TOKEN=<unset>' }]);
      updates.length = 0;
      await session.prompt(request('whoami', (u) => updates.push(u)));
      expect(updates).toEqual([{ kind: 'message', text: 'persisted-id' }]);
      await session.close();
    } finally {
      delete process.env.TURNS_TOKEN;
    }
  });
});

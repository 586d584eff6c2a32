import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AcpEngine } from './acp.engine.js';
import type { EnginePermissionOutcome, EnginePermissionRequest, EngineSession } from '../engines/agent-engine.js';
import { deferred } from '../../test/support/deferred.js';

const FIXTURE = `node ${join(__dirname, '..', '..', 'test', 'fixtures', 'acp-fixture-agent.mjs')}`;

/** The fixture agent's record of the answers it got (one line each), and whether its tool ran. */
const outcomes = (cwd: string) =>
  existsSync(join(cwd, 'permission-outcomes.log')) ? readFileSync(join(cwd, 'permission-outcomes.log'), 'utf8') : '';
const ran = (cwd: string) => existsSync(join(cwd, 'marker.txt'));

describe('AcpEngineSession and requests for approval (docs/permissions.md)', () => {
  let cwd: string;
  let session: EngineSession;
  beforeEach(async () => {
    cwd = mkdtempSync(join(tmpdir(), 'acp-approval-'));
    session = await new AcpEngine(FIXTURE).openSession({ sessionId: 's', cwd, resume: false });
  });
  afterEach(async () => {
    await session.close({ immediate: true });
    rmSync(cwd, { recursive: true, force: true });
  });

  it('refuses a request for approval when the turn has no one to ask: the agent gets cancelled, the tool never runs', async () => {
    const abort = new AbortController();
    const result = await session.prompt({ prompt: [{ type: 'text', text: 'shell now' }], signal: abort.signal, onUpdate: () => undefined });
    expect(result).toEqual({ stopReason: 'cancelled' });
    expect(outcomes(cwd)).toBe('cancelled\n');
    expect(ran(cwd)).toBe(false);
  });

  it('a close lets the turn it cancelled end before it stops the agent, so the agent reads its cancelled answer', async () => {
    const abort = new AbortController();
    const asked = deferred<EnginePermissionRequest>();
    // As the runtime's broker does: a request is answered cancelled when its turn aborts.
    const requestPermission = (request: EnginePermissionRequest) =>
      new Promise<EnginePermissionOutcome>((resolve) => {
        abort.signal.addEventListener('abort', () => resolve({ outcome: 'cancelled' }), { once: true });
        asked.resolve(request);
      });
    const turn = session.prompt({
      prompt: [{ type: 'text', text: 'shell now' }],
      signal: abort.signal,
      onUpdate: () => undefined,
      requestPermission,
    });
    expect((await asked.promise).toolCall).toMatchObject({ title: 'echo ran > marker.txt' });
    abort.abort(); // what the bridge does to a closing session's running turn
    await session.close();
    await expect(turn).resolves.toEqual({ stopReason: 'cancelled' });
    expect(outcomes(cwd)).toBe('cancelled\n');
    expect(ran(cwd)).toBe(false);
  });
});

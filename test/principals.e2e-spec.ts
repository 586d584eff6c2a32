import { writeFileSync } from 'node:fs';
import type { IncomingMessage, Server } from 'node:http';
import { join } from 'node:path';
import { TurnsClient } from '../src/client/index.js';
import { createApp } from '../src/daemon/create-app.js';
import { tokenDigest } from '../src/daemon/tokens-file.js';
import { principalOf } from '../src/http/request-principal.js';
import { ADAPTERS, startDaemon, tempDir, type TestDaemon } from './support/test-daemon.js';

const ALICE = 'alice-token-7d1f';
const ROOT = 'root-token-90ab';
const ENV = 'env-token-5c3e';
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/** A tokens file of two principals, one by its plain token and one, an operator, by its SHA-256. */
function tokensFile(dir: string): string {
  const file = join(dir, 'tokens');
  writeFileSync(file, `# who may call\nalice ${ALICE}\nroot sha256:${tokenDigest(ROOT).toString('hex')} operator\n`);
  return file;
}

describe.each(ADAPTERS)('principals of a tokens file (%s)', (httpAdapter) => {
  let daemon: TestDaemon;
  /** The principal the last request reached the framework as. */
  let seen: unknown;

  beforeAll(async () => {
    const dir = tempDir();
    daemon = await startDaemon({ httpAdapter, dataDir: dir, workspaces: [dir], token: ENV, tokensFile: tokensFile(dir), metricsPort: 0 });
    // Behind the front door (a listener after its own, which passed the request on at once): what the routes read.
    (daemon.app.getHttpServer() as Server).on('request', (req: IncomingMessage) => (seen = principalOf(req)));
  });
  afterAll(() => daemon.close(true));

  it.each([
    ['a token of the file', ALICE, { name: 'alice', operator: false }],
    ['a sha256 line', ROOT, { name: 'root', operator: true }],
    ['TURNS_TOKEN beside the file', ENV, { name: 'default', operator: true }],
  ])('accepts %s and records its principal', async (_, token, principal) => {
    seen = undefined;
    const res = await fetch(`${daemon.url}/capabilities`, { headers: bearer(token) });
    expect(res.status).toBe(200);
    expect(seen).toEqual(principal);
  });

  it('answers a missing, malformed or wrong token the same 401', async () => {
    const answers = new Set<string>();
    for (const authorization of [
      undefined,
      'Basic YWxpY2U6eA==',
      'Bearer',
      `Bearer ${ALICE}x`,
      `Bearer ${tokenDigest(ROOT).toString('hex')}`,
      ALICE,
    ]) {
      const res = await fetch(`${daemon.url}/capabilities`, { headers: authorization === undefined ? {} : { authorization } });
      answers.add(JSON.stringify([res.status, res.headers.get('www-authenticate'), await res.text()]));
    }
    expect([...answers]).toEqual([JSON.stringify([401, 'Bearer', '{"error":"Unauthorized","code":"unauthorized"}'])]);
  });

  it("asks the metrics port's front door the same principals", async () => {
    const server = daemon.app.get((await import('../src/metrics/metrics-server.js')).MetricsServer);
    expect((await fetch(server.url!, { headers: bearer(ALICE) })).status).toBe(200);
    expect((await fetch(server.url!, { headers: bearer(ROOT) })).status).toBe(200);
    expect((await fetch(server.url!, { headers: bearer('nope') })).status).toBe(401);
  });

  it("TurnsClient works with a tokens-file principal's token, and is refused 401 with a wrong one", async () => {
    const client = new TurnsClient({ baseUrl: daemon.url, token: ALICE });
    const { sessionId, clientId } = await client.createSession();
    const turns = new TurnsClient({ baseUrl: daemon.url, token: ALICE, clientId });
    const { promptId } = await turns.prompt(sessionId, 'hello');
    expect(await turns.getTurn(sessionId, promptId)).toMatchObject({ promptId, state: expect.stringMatching(/^(queued|running)$/) });
    await expect(new TurnsClient({ baseUrl: daemon.url, token: 'nope' }).capabilities()).rejects.toMatchObject({
      status: 401,
      code: 'unauthorized',
    });
  });

  it('lets /health pass without a token', async () => {
    expect((await fetch(`${daemon.url}/health`)).status).toBe(200);
  });
});

describe('a bad tokens file', () => {
  it('refuses to start, naming the file and the line but not the token', async () => {
    const dir = tempDir();
    const file = join(dir, 'tokens');
    writeFileSync(file, `alice ${ALICE}\nbob ${ALICE}\n`);
    const config = {
      host: '127.0.0.1',
      port: 0,
      dataDir: dir,
      workspaces: [dir],
      agent: 'echo' as const,
      maxPendingPrompts: 5,
      chatRecording: true,
      httpAdapter: 'express' as const,
      echoDelayMs: 0,
    };
    const failure = createApp({ ...config, tokensFile: file });
    await expect(failure).rejects.toThrow(`tokens file ${file}, line 2: the same token as line 1`);
    await expect(failure).rejects.not.toThrow(ALICE);
  });
});

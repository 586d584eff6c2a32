import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { EchoEngine } from '../src/engines/echo.engine.js';
import { compileClientProgram, runClientProgram } from './support/generated-client.js';
import { startDaemon, type TestDaemon } from './support/test-daemon.js';

const ROOT = join(__dirname, '..');

/**
 * The document as a generator takes it: openapi-typescript generates the
 * types, a program on openapi-fetch type-checks (strict) and runs against the
 * daemon that served the document.
 */
describe('a client generated from the OpenAPI document (openapi-typescript + openapi-fetch)', () => {
  jest.setTimeout(120_000);
  let daemon: TestDaemon;
  // Inside the repo, so the program resolves openapi-fetch from its node_modules.
  const dir = join(ROOT, '.test-dist', 'openapi-client');

  beforeAll(async () => {
    daemon = await startDaemon({}, { engine: new EchoEngine(0) });
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
  });
  afterAll(async () => {
    await daemon.close(true);
    rmSync(dir, { recursive: true, force: true });
  });

  it('generates, type-checks, admits a prompt with a client id, narrows completed and reads a typed error', async () => {
    const document = (await daemon.http.get('/docs-json').expect(200)).body;
    expect(document.servers).toEqual([{ url: '/', description: 'The daemon serving this document' }]);
    expect(await compileClientProgram(dir, document, 'program.mts')).toBe('');
    const stdout = await runClientProgram(dir, daemon.url);
    expect(stdout).toBe('completed echo: typed\n404 prompt_not_found\n');
  });

  it('names every operation for what it does: stable, unique operationIds', async () => {
    const document = (await daemon.http.get('/docs-json').expect(200)).body as {
      paths: Record<string, Record<string, { operationId: string }>>;
    };
    const ids = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, operation]) => `${method.toUpperCase()} ${path} ${operation.operationId}`),
    );
    expect(ids.sort()).toEqual(
      [
        'GET /health getHealth',
        'GET /capabilities getCapabilities',
        'GET /debug/stats getDebugStats',
        'GET /daemon/status getDaemonStatus',
        'GET /health/ready getReadiness',
        'GET /metrics getMetrics',
        'POST /session createSession',
        'POST /session/{id}/load loadSession',
        'POST /session/{id}/rewind rewindSession',
        'POST /session/{id}/fork forkSession',
        'POST /session/{id}/resume resumeSession',
        'POST /session/{id}/branch branchSession',
        'GET /session/{id}/rewind/snapshots getRewindSnapshots',
        'GET /session/{id}/status getSessionStatus',
        'POST /session/{id}/heartbeat heartbeatSession',
        'POST /session/{id}/detach detachSession',
        'DELETE /session/{id} closeSession',
        'POST /session/{id}/prompt admitPrompt',
        'GET /session/{id}/pending-prompts listPendingPrompts',
        'DELETE /session/{id}/pending-prompts/{promptId} removePendingPrompt',
        'POST /session/{id}/cancel cancelRunningPrompt',
        'POST /session/{id}/permission/{requestId} answerSessionPermission',
        'POST /permission/{requestId} answerPermission',
        'GET /session/{id}/events streamSessionEvents',
        'GET /session/{id}/turns listTurns',
        'GET /session/{id}/turns/current getCurrentTurn',
        'GET /session/{id}/turns/{promptId} getTurn',
        'POST /session/{id}/webhooks createWebhook',
        'GET /session/{id}/webhooks listWebhooks',
        'DELETE /session/{id}/webhooks/{webhookId} deleteWebhook',
        'GET /session/{id}/webhooks/{webhookId}/deliveries listWebhookDeliveries',
      ].sort(),
    );
  });
});

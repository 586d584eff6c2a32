import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Module, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { documentTurnRoutes, TurnsModule, type TurnsModuleOptions } from '../src/index.js';
import { createTurnsTestingApp, InMemoryBridgeOverlay, InMemoryTranscriptScan } from '../src/testing/index.js';
import { compileClientProgram, runClientProgram } from './support/generated-client.js';
import { ADAPTERS } from './support/test-daemon.js';

const ROOT = join(__dirname, '..');
const run = promisify(execFile);

/**
 * A host's own Swagger setup over its app, as Nest's docs and docs/mounting.md show it: `createDocument` and nothing
 * after it (this host has no auth of its own: `security: []`).
 */
function hostDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Acme agents')
    .setVersion('1')
    .addServer('/')
    .setLicense('MIT', 'https://opensource.org/license/mit')
    .build();
  return SwaggerModule.createDocument(app, { ...config, security: [] });
}

const TURN_OPERATIONS = ['/session/{id}/turns', '/session/{id}/turns/current', '/session/{id}/turns/{promptId}'];
type Parameter = { name: string; in: string; required?: boolean; schema?: { maximum?: number } };
const parametersOf = (document: OpenAPIObject, path: string) => document.paths[path]!.get!.parameters as Parameter[];

/** What a host with TurnsModule alone (no daemon) can be answered on the turn routes. */
const TURN_ROUTE_CODES = [
  'invalid_client_id',
  'invalid_wait_ms',
  'invalid_activity',
  'invalid_turn_state',
  'invalid_limit',
  'invalid_page_token',
  'invalid_transcript_cursor',
  'session_not_found',
  'prompt_not_found',
  'transcript_snapshot_unavailable',
  'transcript_page_too_large',
  'transcript_too_large',
  'too_many_waiters',
  'shutting_down',
];

const OPTIONS = [
  { clientIdHeader: 'X-Acme-Client', requireClientId: true, maxWaitMs: 7_000 },
  { clientIdHeader: 'X-Acme-Client' },
  { requireClientId: false },
] satisfies TurnsModuleOptions[];

describe.each(ADAPTERS.flatMap((adapter) => OPTIONS.map((options) => ({ adapter, options }))))(
  "a host's stock OpenAPI document follows its TurnsModule options ($adapter, $options)",
  ({ adapter, options }) => {
    let app: INestApplication;
    let document: OpenAPIObject;
    beforeAll(async () => {
      ({ app } = await createTurnsTestingApp({ ...options, adapter }));
      document = hostDocument(app);
    });
    afterAll(() => app.close());

    it('declares the client id header by its name, required as configured, and the wait bound of this host', () => {
      const name = options.clientIdHeader ?? 'X-Qwen-Client-Id';
      for (const path of TURN_OPERATIONS) {
        const headers = parametersOf(document, path).filter((p) => p.in === 'header' && /client/i.test(p.name));
        const required = options.requireClientId ?? false;
        expect({ path, headers: headers.map((p) => [p.name, p.required]) }).toEqual({ path, headers: [[name, required]] });
      }
      for (const path of TURN_OPERATIONS.slice(1)) {
        expect(parametersOf(document, path).find((p) => p.name === 'waitMs')!.schema!.maximum).toBe(options.maxWaitMs ?? 30_000);
      }
    });

    it('lists only the codes the turn routes answer, in words true for any host; lints clean', async () => {
      const schemas = document.components!.schemas! as Record<string, { enum?: string[]; properties?: Record<string, unknown> }>;
      expect(schemas.ErrorCode!.enum).toEqual(TURN_ROUTE_CODES);
      // Details of the daemon's codes (webhooks, prompts, cluster) are not described either.
      expect(Object.keys(schemas.ErrorResponseDto!.properties!)).not.toEqual(expect.arrayContaining(['pendingCount']));
      expect(Object.keys(schemas.ErrorResponseDto!.properties!)).not.toEqual(expect.arrayContaining(['webhookId']));
      const text = JSON.stringify(document);
      // (`daemon_lost` is a wire error code of a turn, not the daemon's.)
      for (const daemonOnly of [/POST \/session/, /limits\.maxWaitMs/, /UUIDs/, /daemon(?!_lost)/, /bearer/i, /cluster_unavailable/]) {
        expect({ daemonOnly: String(daemonOnly), found: daemonOnly.test(text) }).toEqual({ daemonOnly: String(daemonOnly), found: false });
      }
      const dir = mkdtempSync(join(tmpdir(), 'turns-host-openapi-'));
      try {
        writeFileSync(join(dir, 'openapi.json'), text);
        const { stdout } = await run(process.execPath, [join(ROOT, 'scripts', 'openapi-lint.mjs'), join(dir, 'openapi.json')]);
        expect(stdout).toContain('openapi lint: 0 errors, 0 warnings');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('is left as it is by documentTurnRoutes, no longer needed', () => {
      const copy = structuredClone(document);
      expect(documentTurnRoutes(app, copy)).toEqual(document);
    });
  },
);

describe("a host's stock OpenAPI document with TurnsModule.forRootAsync", () => {
  let app: INestApplication;
  afterAll(() => app?.close());

  it('declares the header and wait bound its factory resolved', async () => {
    @Module({
      imports: [
        TurnsModule.forRootAsync({
          bridgeOverlay: InMemoryBridgeOverlay,
          transcriptScan: InMemoryTranscriptScan,
          useFactory: async () => ({ clientIdHeader: 'X-Async-Client', maxWaitMs: 5_000 }),
        }),
      ],
    })
    class AsyncHostModule {}
    app = await NestFactory.create(AsyncHostModule, { logger: false });
    const document = hostDocument(app);
    for (const path of TURN_OPERATIONS) {
      const headers = parametersOf(document, path).filter((p) => p.in === 'header' && /client/i.test(p.name));
      expect({ path, headers: headers.map((p) => p.name) }).toEqual({ path, headers: ['X-Async-Client'] });
    }
    expect(parametersOf(document, TURN_OPERATIONS[1]!).find((p) => p.name === 'waitMs')!.schema!.maximum).toBe(5_000);
  });
});

/**
 * The trial: a renamed header, not required. A client generated from the
 * host's document (openapi-typescript + openapi-fetch) sends the header the server checks.
 */
describe('a client generated from a host document with a renamed client id header', () => {
  jest.setTimeout(120_000);
  const dir = join(ROOT, '.test-dist', 'openapi-host-client');
  const hosts: Array<{ adapter: string; app: INestApplication; url: string }> = [];

  beforeAll(async () => {
    for (const adapter of ADAPTERS) {
      const { app, bridge } = await createTurnsTestingApp({ adapter, clientIdHeader: 'X-Acme-Client', requireClientId: false });
      bridge.addSession('s1', { clientIds: ['c1'] });
      await app.listen(0, '127.0.0.1');
      hosts.push({ adapter, app, url: await app.getUrl() });
    }
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
  });
  afterAll(async () => {
    for (const { app } of hosts) await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('type-checks with the renamed header, sends it, and an unregistered id is refused (Express and Fastify)', async () => {
    expect(await compileClientProgram(dir, hostDocument(hosts[0]!.app), 'host-program.mts')).toBe('');
    for (const { adapter, url } of hosts) {
      const stdout = await runClientProgram(dir, url.replace('[::1]', '127.0.0.1'));
      expect({ adapter, stdout }).toEqual({ adapter, stdout: '200 idle\n400 invalid_client_id\n' });
    }
  });
});

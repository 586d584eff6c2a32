import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type request from 'supertest';
import { promisify } from 'node:util';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { minimalExample, violations, withValue, type Schema } from './support/openapi-violations.js';
import { ADAPTERS, startDaemon, type TestDaemon } from './support/test-daemon.js';

const ROOT = join(__dirname, '..');
const CHROMIUM = process.env.CHROMIUM_BIN ?? '/usr/bin/chromium';

/** Runs a repo script with node (without blocking the in-process daemon); returns its exit code and output. */
async function script(name: string, args: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [join(ROOT, 'scripts', name), ...args], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 120_000,
    });
    return { code: 0, output: stdout };
  } catch (error) {
    const failed = error as { status: number; stdout: string };
    return { code: failed.status, output: failed.stdout };
  }
}

describe.each(ADAPTERS)('OpenAPI document and Swagger UI (%s)', (httpAdapter) => {
  let daemon: TestDaemon;
  beforeAll(async () => {
    daemon = await startDaemon({ httpAdapter, token: 'docs-secret' });
  });
  afterAll(() => daemon.close(true));

  it('keeps /docs and /docs-json behind the token, like every other route', async () => {
    for (const path of ['/docs', '/docs/', '/docs-json']) {
      const denied = await daemon.http.get(path).expect(401);
      expect(denied.body).toEqual({ error: 'Unauthorized', code: 'unauthorized' });
      await daemon.http.get(path).set('Authorization', 'Bearer wrong').expect(401);
    }
    await daemon.http.get('/docs-json').set('Authorization', 'bearer docs-secret').expect(200);
    await daemon.http.get('/health').expect(200);
  });

  it('lints clean with the recommended ruleset and states the turn status union', async () => {
    const { body: doc } = await daemon.http.get('/docs-json').set('Authorization', 'Bearer docs-secret').expect(200);
    const dir = mkdtempSync(join(tmpdir(), 'turns-openapi-'));
    try {
      writeFileSync(join(dir, 'openapi.json'), JSON.stringify(doc));
      const lint = await script('openapi-lint.mjs', [join(dir, 'openapi.json')]);
      // /health has a 4xx now (a foreign origin's 403): nothing left to warn about.
      expect(lint.output).toContain('openapi lint: 0 errors, 0 warnings');
      expect(lint.code).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const ok = doc.paths['/session/{id}/turns/{promptId}'].get.responses['200'];
    const schema = ok.content['application/json'].schema;
    expect(schema.oneOf).toHaveLength(6);
    expect(schema.discriminator.propertyName).toBe('state');
    expect(Object.keys(ok.content['application/json'].examples)).toEqual(['idle', 'queued', 'running', 'completed', 'cancelled', 'error']);
    expect(Object.keys(ok.headers)).toEqual(['ETag', 'Cache-Control', 'Retry-After', 'Preference-Applied']);
    expect(doc.paths['/session/{id}/turns/current'].get.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(['waitMs', 'Prefer']),
    );
    const notFound = doc.paths['/session/{id}/turns/{promptId}'].get.responses['404'].content['application/json'].examples;
    expect(notFound.prompt_not_found.value).toMatchObject({ code: 'prompt_not_found', promptId: expect.any(String) });
    expect(notFound.session_not_found.value).toMatchObject({ code: 'session_not_found' });
    // Each example carries the details its catalogue entry declares, typed as the schema says.
    const full = doc.paths['/session/{id}/prompt'].post.responses['503'].content['application/json'].examples.prompt_queue_full.value;
    expect(full).toEqual({
      error: 'Too many pending prompts for this session',
      code: 'prompt_queue_full',
      sessionId: expect.any(String),
      limit: 5,
      pendingCount: 5,
    });
    const details = doc.components.schemas.ErrorResponseDto.properties;
    expect([details.limit.type, details.sessionId.type, details.pendingCount.description]).toEqual([
      'integer',
      'string',
      'prompt_queue_full: prompts pending now, running included.',
    ]);
    const held = doc.paths['/session/{id}/turns/{promptId}'].get.responses['503'].content['application/json'].examples;
    expect(held.shutting_down.value).toEqual({ error: 'Shutting down', code: 'shutting_down' });
    expect(doc.components.schemas.RunningTurnStatusDto.required).toEqual(expect.arrayContaining(['queuedAt', 'startedAt', 'state']));
    expect(doc.paths['/health'].get.security).toEqual([]);
    expect(doc.paths['/capabilities'].get.responses['401']).toBeDefined();
    expect(doc.info.license.name).toBe('MIT');
  });

  it("documents the rate limits' 429, with its headers, on every route they limit and on no exempt one", async () => {
    const { body: doc } = await daemon.http.get('/docs-json').set('Authorization', 'Bearer docs-secret').expect(200);
    const exempt = ['get /health', 'get /health/ready', 'post /session/{id}/heartbeat', 'get /session/{id}/events'];
    const operations = Object.entries(
      doc.paths as Record<string, Record<string, { responses: Record<string, { headers?: object }> }>>,
    ).flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => [`${method} ${path}`, operation] as const));
    expect(operations.length).toBeGreaterThan(20);
    for (const [name, operation] of operations) {
      const limited = operation.responses['429'];
      if (exempt.includes(name)) expect([name, limited]).toEqual([name, undefined]);
      else
        expect([name, Object.keys(limited?.headers ?? {}).sort()]).toEqual([
          name,
          ['Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'],
        ]);
    }
    expect(doc.components.schemas.ErrorCode.enum).toContain('rate_limit_exceeded');
  });
});

// Headless Chromium comes from the Debian package `chromium`; without it this check is skipped.
(existsSync(CHROMIUM) ? describe : describe.skip)('Swagger UI in headless Chromium', () => {
  let daemon: TestDaemon;
  beforeAll(async () => {
    daemon = await startDaemon({});
  });
  afterAll(() => daemon.close(true));

  // A browser's start and a full render: more than a unit test's 20 s when other workers share the cores.
  it('renders every operation', async () => {
    const check = await script('swagger-ui-check.mjs', [daemon.url]);
    expect(check.output).toMatch(/swagger ui: (\d+) of \1 operations rendered/);
    expect(check.code).toBe(0);
  }, 90_000);
});

describe.each(ADAPTERS)('the OpenAPI document states what the server enforces (%s)', (httpAdapter) => {
  const maxWaitMs = 12_000;
  let daemon: TestDaemon;
  let doc: Schema;
  let sessionId: string;
  beforeAll(async () => {
    daemon = await startDaemon({ httpAdapter, maxWaitMs, maxPendingPrompts: 1_000 });
    doc = (await daemon.http.get('/docs-json').expect(200)).body;
    sessionId = (await daemon.createSession()).sessionId;
  });
  afterAll(() => daemon.close(true));

  /** Every operation with a request body or a constrained query or header parameter. */
  const checkedOperations = () =>
    Object.entries<Schema>(doc.paths).flatMap(([path, item]) =>
      Object.entries<Schema>(item).flatMap(([method, operation]) => {
        const parameters = (operation.parameters ?? []).filter(
          (p: Schema) => p.in !== 'path' && Object.keys(p.schema ?? {}).some((k) => k !== 'type' && k !== 'example'),
        );
        const body = operation.requestBody?.content?.['application/json']?.schema;
        return body || parameters.length > 0
          ? [{ path, method, body: body as Schema | undefined, parameters: parameters as Schema[] }]
          : [];
      }),
    );

  const send = (
    method: string,
    path: string,
    options: { body?: unknown; query?: Record<string, unknown>; headers?: Record<string, string> },
  ) => {
    const url = path.replace('{id}', sessionId).replace('{promptId}', randomUUID());
    const req = (daemon.http as unknown as Record<string, (url: string) => request.Test>)[method]!(url).set(options.headers ?? {});
    if (options.query) req.query(options.query as Record<string, string>);
    return options.body === undefined ? req : req.set('Content-Type', 'application/json').send(JSON.stringify(options.body));
  };

  it('checks every request body and constrained parameter of the document', () => {
    expect(checkedOperations().map(({ method, path }) => `${method} ${path}`)).toEqual(
      expect.arrayContaining([
        'post /session',
        'post /session/{id}/prompt',
        'post /session/{id}/rewind',
        'get /session/{id}/turns/current',
        'get /session/{id}/turns/{promptId}',
      ]),
    );
    const waitMs = doc.paths['/session/{id}/turns/current'].get.parameters.find((p: Schema) => p.name === 'waitMs');
    expect(waitMs.schema).toEqual({ type: 'integer', minimum: 0, maximum: maxWaitMs });
  });

  it('accepts a minimal valid example of every request body and refuses each constraint broken with a 400', async () => {
    let refused = 0;
    for (const { method, path, body, parameters } of checkedOperations()) {
      const bodyExample = body && minimalExample(doc, body);
      // Without a body or a query to check, a call could act on the session the other checks use (DELETE, fork) or never end (events).
      if (body || parameters.some((p) => p.in === 'query')) {
        const accepted = await send(method, path, { body: bodyExample });
        // The SSRF guard refuses where a URL points, not its shape: a policy of the daemon, not of the schema.
        const schemaRefused = accepted.status === 400 && accepted.body.code !== 'webhook_url_forbidden';
        expect([method, path, schemaRefused ? accepted.body : 'accepted']).toEqual([method, path, 'accepted']);
      }
      for (const broken of body ? violations(doc, body) : []) {
        const base = broken.base ? withValue(bodyExample, broken.base.path, broken.base.value) : bodyExample;
        const res = await send(method, path, { body: withValue(base, broken.path, broken.value) });
        expect([method, path, broken.label, res.status]).toEqual([method, path, broken.label, 400]);
        refused += 1;
      }
      for (const parameter of parameters) {
        for (const broken of violations(doc, parameter.schema)) {
          // A query string or a header has no null, and is always a string.
          if (broken.value === null || (parameter.schema.type === 'string' && broken.label.endsWith(': not string'))) continue;
          const value = String(broken.value);
          const res = await send(
            method,
            path,
            parameter.in === 'query' ? { query: { [parameter.name]: value } } : { headers: { [parameter.name]: value } },
          );
          expect([method, path, parameter.name, broken.label, res.status]).toEqual([method, path, parameter.name, broken.label, 400]);
          refused += 1;
        }
      }
    }
    expect(refused).toBeGreaterThan(40);
  });
});

import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
    expect(doc.components.schemas.RunningTurnStatusDto.required).toEqual(expect.arrayContaining(['queuedAt', 'startedAt', 'state']));
    expect(doc.paths['/health'].get.security).toEqual([]);
    expect(doc.paths['/capabilities'].get.responses['401']).toBeDefined();
    expect(doc.info.license.name).toBe('MIT');
  });
});

// Headless Chromium comes from the Debian package `chromium`; without it this check is skipped.
(existsSync(CHROMIUM) ? describe : describe.skip)('Swagger UI in headless Chromium', () => {
  let daemon: TestDaemon;
  beforeAll(async () => {
    daemon = await startDaemon({});
  });
  afterAll(() => daemon.close(true));

  it('renders every operation', async () => {
    const check = await script('swagger-ui-check.mjs', [daemon.url]);
    expect(check.output).toMatch(/swagger ui: (\d+) of \1 operations rendered/);
    expect(check.code).toBe(0);
  });
});

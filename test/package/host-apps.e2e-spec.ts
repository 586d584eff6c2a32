import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import request from 'supertest';
import { PACKAGE_VERSION } from '../../src/common/package-version.js';
import { signTurnWebhook } from '../../src/webhooks/turn-webhook-signature.js';
import { generateWebhookSecret } from '../../src/webhooks/webhook-secret.js';
import { startDaemonProcess } from '../support/daemon-process.js';
import { copiesOf, installed, npmInstall, packedRoot, ROOT } from './support/npm.js';

/**
 * The package as a host app gets it: `npm pack`, the tarball installed next to
 * the host's own Nest (a different 12.x in an ESM app, 11.x in a CommonJS app)
 * and nothing else of ours, then the turn routes driven over HTTP. The stock
 * `nest new` projects are in stock-hosts.e2e-spec.ts.
 */
const HOSTS = join(__dirname, 'hosts');

/** Starts `node file` in the host dir; resolves with its URL once it listens. */
function startHost(cwd: string, file: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [file], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => resolve({ url: (JSON.parse(line) as { url: string }).url.replace('[::1]', '127.0.0.1'), child }));
    child.once('exit', (code) => reject(new Error(`${file} exited with ${code}: ${stderr}`)));
  });
}

describe('the packed package in host apps', () => {
  jest.setTimeout(600_000);
  let work: string;
  let tarball: string;
  const children: ChildProcess[] = [];

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'turns-hosts-'));
    const { tarball: packed, files: shipped } = packedRoot();
    tarball = packed;
    expect(shipped.filter((path) => /\.spec\.|fixture|^test\/|\.map$/.test(path))).toEqual([]);
  });

  afterAll(() => {
    for (const child of children) child.kill('SIGKILL');
    rmSync(work, { recursive: true, force: true });
  });

  function install(host: string): string {
    const dir = join(work, host);
    cpSync(join(HOSTS, host), dir, { recursive: true });
    npmInstall(dir, '--no-save', tarball);
    return dir;
  }

  async function start(dir: string, file: string) {
    const host = await startHost(dir, file);
    children.push(host.child);
    return request(host.url);
  }

  async function expectTurnRoutes(http: ReturnType<typeof request>) {
    const current = await http.get('/session/host-session/turns/current').expect(200);
    expect(current.body).toEqual({ sessionId: 'host-session', state: 'running', promptId: 'p-live', queuedAt: 4, startedAt: 5 });
    expect(current.headers['retry-after']).toBe('1');
    const done = await http.get('/session/host-session/turns/p-done').set('X-Qwen-Client-Id', 'host-client').expect(200);
    expect(done.body).toMatchObject({ state: 'completed', resultText: 'done' });
    await http.get('/session/host-session/turns/p-done').set('If-None-Match', done.headers.etag!).expect(304);
    const old = await http.get('/session/host-session/turns/p-old').expect(200);
    expect(old.body).toEqual({
      sessionId: 'host-session',
      state: 'completed',
      promptId: 'p-old',
      endedAt: 0,
      resultText: 'from the transcript',
    });
    const missing = await http.get('/session/host-session/turns/nope').expect(404);
    expect(missing.body).toEqual({ error: 'Prompt not found', code: 'prompt_not_found', sessionId: 'host-session', promptId: 'nope' });
    const unknown = await http.get('/session/other/turns/current').expect(404);
    expect(unknown.body).toEqual({ error: 'Session not found', code: 'session_not_found', sessionId: 'other' });
    const malformed = await http.get('/session/host-session/turns/current').set('X-Qwen-Client-Id', 'bad id!').expect(400);
    expect(malformed.body).toMatchObject({ code: 'invalid_client_id' });
    const foreign = await http.get('/session/host-session/turns/current').set('X-Qwen-Client-Id', 'someone-else').expect(400);
    expect(foreign.body).toEqual({
      error: 'Client id is not registered on this session',
      code: 'invalid_client_id',
      sessionId: 'host-session',
      clientId: 'someone-else',
    });
  }

  function expectOneNest(dir: string, major: number) {
    const copies = copiesOf(join(dir, 'node_modules'), '@nestjs/core');
    expect(copies).toEqual([join(dir, 'node_modules', '@nestjs', 'core')]);
    const version = JSON.parse(
      execFileSync(process.execPath, ['-p', 'JSON.stringify(require("@nestjs/core/package.json").version)'], {
        cwd: dir,
        encoding: 'utf8',
      }),
    );
    expect(Number(version.split('.')[0])).toBe(major);
    // The root layer works without the optional peers installed (Swagger included: its decorators then record nothing).
    for (const absent of ['@nestjs/swagger', '@nestjs/platform-fastify', 'fastify', '@agentclientprotocol/sdk'])
      expect(copiesOf(join(dir, 'node_modules'), absent)).toEqual([]);
  }

  it('mounts TurnsModule in an ESM app on another Nest 12, with one copy of Nest', async () => {
    const dir = install('esm-nest12');
    expectOneNest(dir, 12);
    expect(copiesOf(join(dir, 'node_modules'), '@nestjs/common')).toHaveLength(1);
    await expectTurnRoutes(await start(dir, 'app.mjs'));
  });

  it('embeds the reference runtime with its own routes in that app', async () => {
    const http = await start(join(work, 'esm-nest12'), 'runtime.mjs');
    const { body: session } = await http.post('/session').send({}).expect(200);
    const { body: admitted } = await http
      .post(`/session/${session.sessionId}/prompt`)
      .set('X-Qwen-Client-Id', session.clientId)
      .send({ prompt: [{ type: 'text', text: 'hi' }] })
      .expect(202);
    let status = { state: 'queued' } as { state: string; resultText?: string };
    for (let i = 0; i < 200 && (status.state === 'queued' || status.state === 'running'); i += 1) {
      status = (await http.get(`/session/${session.sessionId}/turns/${admitted.promptId}`).expect(200)).body;
    }
    expect(status).toMatchObject({ state: 'completed', resultText: 'echo: hi' });
    await http.post(`/session/${session.sessionId}/prompt`).send({ prompt: [] }).expect(400);
    await http.get(`/session/${session.sessionId}/turns/current`).set('X-Qwen-Client-Id', 'client_unknown').expect(400);
  });

  it('loads with require() in a CommonJS app on Nest 11, with one copy of Nest', async () => {
    const dir = install('cjs-nest11');
    expectOneNest(dir, 11);
    // require() gets the CommonJS build, import() the ESM one.
    expect(node(dir, "console.log(require.resolve('nest-turn-status'))").stdout).toMatch(/nest-turn-status\/dist\/cjs\/index\.js\n$/);
    await expectTurnRoutes(await start(dir, 'app.cjs'));
  });

  it('refuses to load both builds in one process (the dual-package hazard): one copy of each token', () => {
    const both = node(
      join(work, 'cjs-nest11'),
      "require('nest-turn-status'); import('nest-turn-status').then(() => console.log('loaded twice'), (e) => console.log(e.message))",
    );
    expect(both.stdout).toMatch(/^nest-turn-status is loaded twice in this process \(its ESM and CommonJS builds/);
  });

  it("runs the ESM Nest 12 host's supertest e2e through the testing kit (node:test)", () => {
    // TAP, named: the default reporter's summary changes between Node majors (`# pass 2` on 20, `ℹ pass 2` on 26).
    const args = ['--test', '--test-reporter=tap', 'kit.test.mjs'];
    const run = spawnSync(process.execPath, args, { cwd: join(work, 'esm-nest12'), encoding: 'utf8' });
    expect(run.stdout).toMatch(/^# pass 2\n# fail 0$/m);
    expect(run.status).toBe(0);
  });

  it('the CLI outside the repo pulls no Nest: --version, a typo starts nothing, serve names the package it needs', () => {
    // A project with the package alone: Nest and every other peer is optional, so npm adds none of them.
    const dir = join(work, 'cli-only');
    mkdirSync(dir);
    writeFileSync(join(dir, 'package.json'), '{"name":"cli-only","private":true}');
    npmInstall(dir, tarball);
    const { packages, bytes } = installed(dir);
    expect(packages.filter((name) => /^@nestjs\/|^(rxjs|reflect-metadata|express|fastify)$/.test(name))).toEqual([]);
    console.log(`CLI-only install: ${packages.length} packages, ${(bytes / 1e6).toFixed(1)} MB`);
    const cli = (...args: string[]) =>
      spawnSync(process.execPath, [join(dir, 'node_modules', 'nest-turn-status', 'dist', 'daemon', 'bin.js'), ...args], {
        cwd: dir,
        encoding: 'utf8',
        timeout: 30_000,
      });
    expect(cli('--version')).toMatchObject({ status: 0, stdout: `${PACKAGE_VERSION}\n` });
    const typo = expect.stringMatching(/^error: unknown command 'promtp' \(Did you mean prompt\?\)/);
    expect(cli('promtp', 'hi')).toMatchObject({ status: 4, stderr: typo });
    expect(cli('serve', '--port')).toMatchObject({ status: 4 });
    expect(cli('serve')).toMatchObject({
      status: 1,
      stderr:
        'serve needs the packages @nestjs/common, @nestjs/core, @nestjs/platform-express, @nestjs/swagger, reflect-metadata, rxjs: ' +
        'npm install @nestjs/common @nestjs/core @nestjs/platform-express @nestjs/swagger reflect-metadata rxjs\n',
    });
  });

  it('verifies a signed delivery in that project, with no Nest installed (nest-turn-status/webhooks/verify; import and require)', () => {
    const dir = join(work, 'cli-only');
    const secret = generateWebhookSecret();
    const data = { sessionId: 's1', promptId: 'p1', state: 'completed', endedAt: 2, resultText: 'done' };
    const body = JSON.stringify({ type: 'turn.completed', timestamp: 2, data });
    const delivery = JSON.stringify({ secret, body, headers: signTurnWebhook(secret, 'msg_1', Date.now(), body) });
    const receiver = (load: string) => `${load}
      const { secret, body, headers } = JSON.parse(process.argv[1]);
      const event = verify.verifyTurnWebhook(secret, body, headers);
      let forged;
      try { verify.verifyTurnWebhook(secret, body.replace('done', 'lies'), headers); } catch (error) { forged = error.name; }
      console.log(event.type, event.data.resultText, forged);`;
    const esm = spawnSync(
      process.execPath,
      ['--input-type=module', '-e', receiver("import * as verify from 'nest-turn-status/webhooks/verify';"), delivery],
      {
        cwd: dir,
        encoding: 'utf8',
      },
    );
    expect({ stdout: esm.stdout, stderr: esm.stderr }).toEqual({
      stdout: 'turn.completed done TurnWebhookVerificationError\n',
      stderr: '',
    });
    const cjs = spawnSync(process.execPath, ['-e', receiver("const verify = require('nest-turn-status/webhooks/verify');"), delivery], {
      cwd: dir,
      encoding: 'utf8',
    });
    expect({ stdout: cjs.stdout, stderr: cjs.stderr }).toEqual({
      stdout: 'turn.completed done TurnWebhookVerificationError\n',
      stderr: '',
    });
    // The Nest entry (it holds TurnWebhookGuard) is the one that needs Nest.
    const nest = spawnSync(process.execPath, ['--input-type=module', '-e', "await import('nest-turn-status/webhooks')"], {
      cwd: dir,
      encoding: 'utf8',
    });
    expect(nest.stderr).toMatch(/Cannot find package '@nestjs\/common'/);

    // A TypeScript receiver narrows the event on `type` against the installed types (no Nest types around either).
    writeFileSync(
      join(dir, 'receiver.ts'),
      `import { verifyTurnWebhook, type TurnWebhookEvent } from 'nest-turn-status/webhooks/verify';
export function onDelivery(rawBody: string, headers: Record<string, string | string[] | undefined>): string {
  const event: TurnWebhookEvent = verifyTurnWebhook(process.env.TURNS_WEBHOOK_SECRET, rawBody, headers);
  if (event.type === 'turn.completed') return \`\${event.data.promptId}: \${event.data.resultText ?? ''}\`;
  if (event.type === 'turn.error') return event.data.error.message;
  return event.data.state;
}
`,
    );
    const tscArgs = ['--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--skipLibCheck', 'false'];
    const types = ['--types', 'node', '--typeRoots', join(ROOT, 'node_modules', '@types')];
    const tsc = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), ...tscArgs, ...types, 'receiver.ts'], {
      cwd: dir,
      encoding: 'utf8',
    });
    expect({ stdout: tsc.stdout, status: tsc.status }).toEqual({ stdout: '', status: 0 });
  });

  it('serves once the packages docs/install.md names are added (after the tests without Nest); the ESM build loads the optional @nestjs/swagger for /docs', async () => {
    const dir = join(work, 'cli-only');
    npmInstall(dir, '@nestjs/common', '@nestjs/core', '@nestjs/platform-express', '@nestjs/swagger', 'reflect-metadata', 'rxjs');
    const bin = join(dir, 'node_modules', 'nest-turn-status', 'dist', 'daemon', 'bin.js');
    const daemon = await startDaemonProcess(bin, { TURNS_DATA_DIR: join(dir, 'data') }, ['serve']);
    children.push(daemon.child);
    const doc = (await request(daemon.url).get('/docs-json').expect(200)).body as {
      paths: Record<string, unknown>;
      components: { schemas: Record<string, unknown> };
    };
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/session/{id}/turns/{promptId}', '/session/{id}/turns/current']));
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(['CompletedTurnStatusDto', 'ErrorResponseDto']));
    daemon.child.kill('SIGTERM');
    await daemon.exited;
  });
});

/** `node -e script` in a host's directory. */
function node(cwd: string, script: string) {
  return spawnSync(process.execPath, ['-e', script], { cwd, encoding: 'utf8' });
}

import { execFile, execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import request from 'supertest';
import { PACKAGE_VERSION } from '../../src/common/package-version.js';
import { EchoEngine } from '../../src/engines/echo.engine.js';
import { startDaemon } from '../support/test-daemon.js';

/**
 * The package as a host app gets it: `npm pack`, the tarball installed next to
 * the host's own Nest (a different 12.x in an ESM app, 11.x in a CommonJS app),
 * then the turn routes driven over HTTP. npm's own cache keeps repeated runs
 * fast; nothing else is reused between runs.
 */
const ROOT = join(__dirname, '..', '..');
const HOSTS = join(__dirname, 'hosts');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const npm = (args: string[], cwd: string) => execFileSync(NPM, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** Every installed copy of a package anywhere in a host's tree. */
function copiesOf(nodeModules: string, name: string): string[] {
  const found: string[] = [];
  const walk = (dir: string, depth: number) => {
    if (depth > 8 || !existsSync(dir)) return;
    if (existsSync(join(dir, name, 'package.json'))) found.push(join(dir, name));
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const sub = join(dir, entry.name);
      if (entry.name.startsWith('@')) {
        for (const scoped of readdirSync(sub, { withFileTypes: true })) {
          if (scoped.isDirectory()) walk(join(sub, scoped.name, 'node_modules'), depth + 1);
        }
      } else {
        walk(join(sub, 'node_modules'), depth + 1);
      }
    }
  };
  walk(nodeModules, 0);
  return found;
}

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
    const packed = JSON.parse(npm(['pack', '--json', '--pack-destination', work], ROOT)) as Array<{
      filename: string;
      files: Array<{ path: string }>;
    }>;
    tarball = join(work, packed[0]!.filename);
    const shipped = packed[0]!.files.map((f) => f.path);
    expect(shipped.filter((path) => /\.spec\.|fixture|^test\/|\.map$/.test(path))).toEqual([]);
  });

  afterAll(() => {
    for (const child of children) child.kill('SIGKILL');
    rmSync(work, { recursive: true, force: true });
  });

  function install(host: string): string {
    const dir = join(work, host);
    cpSync(join(HOSTS, host), dir, { recursive: true });
    npm(['install', '--no-audit', '--no-fund', '--prefer-offline', '--no-save', tarball], dir);
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
    // The root layer works without the optional peers installed.
    for (const absent of ['@nestjs/platform-fastify', 'fastify', '@agentclientprotocol/sdk'])
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

  it('runs the supertest e2e of a stock Nest 11 project (nest new: CommonJS, ts-jest, its jest-e2e.json) through the testing kit', () => {
    const dir = install('cjs-nest11-stock');
    const run = spawnSync(process.execPath, [join(dir, 'node_modules', 'jest', 'bin', 'jest.js'), '--config', './test/jest-e2e.json'], {
      cwd: dir,
      encoding: 'utf8',
    });
    expect(run.stderr).toMatch(/Tests:\s+3 passed, 3 total/);
    expect(run.status).toBe(0);
    // The host type-checks against the package's CommonJS types, as `nest build` would — with the
    // `nodenext` resolution of today's nest new, and with the older `node` (node10) one (typesVersions).
    for (const resolution of [[], ['--module', 'commonjs', '--moduleResolution', 'node10', '--resolvePackageJsonExports', 'false']]) {
      const tsc = [join(dir, 'node_modules', 'typescript', 'bin', 'tsc'), '--noEmit', '-p', 'tsconfig.json', ...resolution];
      const types = spawnSync(process.execPath, tsc, { cwd: dir, encoding: 'utf8' });
      expect({ resolution, stdout: types.stdout, status: types.status }).toEqual({ resolution, stdout: '', status: 0 });
    }
  });

  it("runs the ESM Nest 12 host's supertest e2e through the testing kit (node:test)", () => {
    // TAP, named: the default reporter's summary changes between Node majors (`# pass 2` on 20, `ℹ pass 2` on 26).
    const args = ['--test', '--test-reporter=tap', 'kit.test.mjs'];
    const run = spawnSync(process.execPath, args, { cwd: join(work, 'esm-nest12'), encoding: 'utf8' });
    expect(run.stdout).toMatch(/^# pass 2\n# fail 0$/m);
    expect(run.status).toBe(0);
  });

  it('the CLI outside the repo: --version, a typo starts nothing, serve names the package it needs', () => {
    // A project with the package alone: npm adds its required peers, not the optional platform packages.
    const dir = join(work, 'cli-only');
    mkdirSync(dir);
    writeFileSync(join(dir, 'package.json'), '{"name":"cli-only","private":true}');
    npm(['install', '--no-audit', '--no-fund', '--prefer-offline', tarball], dir);
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
      stderr: 'serve needs the package @nestjs/platform-express: npm install @nestjs/platform-express\n',
    });
  });
});

/** `node -e script` in a host's directory. */
function node(cwd: string, script: string) {
  return spawnSync(process.execPath, ['-e', script], { cwd, encoding: 'utf8' });
}

/** Packages and bytes a project's node_modules holds. */
function installed(dir: string): { packages: string[]; bytes: number } {
  const tree = npm(['ls', '--all', '--parseable'], dir).trim().split('\n').slice(1);
  const du = execFileSync('du', ['-sb', join(dir, 'node_modules')], { encoding: 'utf8' });
  return { packages: tree.map((path) => path.slice(path.lastIndexOf('node_modules/') + 13)), bytes: Number(du.split('\t')[0]) };
}

describe('the client, installed alone', () => {
  jest.setTimeout(300_000);
  let work: string;
  let project: string;

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'turns-client-'));
    npm(['run', 'build:client'], ROOT);
    const packed = JSON.parse(npm(['pack', '--json', '--pack-destination', work], join(ROOT, 'packages', 'client'))) as Array<{
      filename: string;
    }>;
    project = join(work, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), '{"name":"client-only","private":true,"type":"module"}');
    npm(['install', '--no-audit', '--no-fund', '--prefer-offline', join(work, packed[0]!.filename)], project);
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('adds no Nest and no dependency to a client-only project', () => {
    const { packages, bytes } = installed(project);
    expect(packages).toEqual(['nest-turn-status-client']);
    expect(bytes).toBeLessThan(1024 * 1024);
    console.log(`client-only install: ${packages.length} package, ${(bytes / 1024).toFixed(0)} KiB`);
  });

  it('works in Node >= 20, by import and by require, against a real daemon', async () => {
    const daemon = await startDaemon({}, { engine: new EchoEngine(0) });
    try {
      const program = `const { sessionId } = await client.createSession({ sessionScope: 'thread' });
        const status = await client.promptAndWait(sessionId, 'from a client-only project');
        console.log(status.state, status.resultText);`;
      writeFileSync(
        join(project, 'esm.mjs'),
        `import { TurnsClient } from 'nest-turn-status-client';\nconst client = new TurnsClient({ baseUrl: process.argv[2] });\n${program}`,
      );
      writeFileSync(
        join(project, 'cjs.cjs'),
        `const { TurnsClient } = require('nest-turn-status-client');\nconst client = new TurnsClient({ baseUrl: process.argv[2] });\n(async () => { ${program} })();`,
      );
      for (const file of ['esm.mjs', 'cjs.cjs']) {
        const run = await new Promise<string>((resolve, reject) =>
          execFile(process.execPath, [file, daemon.url], { cwd: project }, (error, stdout) => (error ? reject(error) : resolve(stdout))),
        );
        expect({ file, run }).toEqual({ file, run: 'completed echo: from a client-only project\n' });
      }
    } finally {
      await daemon.close(true);
    }
  });

  it('bundles for a browser with esbuild: no Node built-in reached', async () => {
    const { build } = await import('esbuild');
    writeFileSync(
      join(project, 'page.js'),
      "import { TurnsClient } from 'nest-turn-status-client';\nwindow.client = new TurnsClient({ baseUrl: '' });\n",
    );
    const result = await build({
      entryPoints: [join(project, 'page.js')],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      write: false,
      metafile: true,
      absWorkingDir: project,
      logLevel: 'silent',
    });
    expect(result.errors).toEqual([]);
    expect(Object.keys(result.metafile.inputs).filter((input) => /^node:|^(fs|path|http|net|crypto)$/.test(input))).toEqual([]);
    expect(result.outputFiles[0]!.text).toMatch(/var TurnsClient = class/);
  });
});

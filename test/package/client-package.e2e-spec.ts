import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EchoEngine } from '../../src/engines/echo.engine.js';
import { startDaemon } from '../support/test-daemon.js';
import { installed, npmInstall, pack, ROOT } from './support/npm.js';

/** `nest-turn-status-client` as a project that only calls a daemon gets it: packed from a clone with no build, installed alone. */
describe('the client, installed alone', () => {
  jest.setTimeout(300_000);
  let work: string;
  let project: string;

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'turns-client-'));
    // As from a fresh clone: no build of the client yet; its prepack makes one.
    rmSync(join(ROOT, 'packages', 'client', 'dist'), { recursive: true, force: true });
    const { tarball, files } = pack(join(ROOT, 'packages', 'client'), work);
    expect(files).toEqual(
      expect.arrayContaining(['dist/client/index.js', 'dist/client/index.d.ts', 'dist/cjs/client/index.js', 'dist/cjs/package.json']),
    );
    project = join(work, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), '{"name":"client-only","private":true,"type":"module"}');
    npmInstall(project, tarball);
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

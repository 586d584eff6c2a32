import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { copiesOf, lockDiff, lockedPackages, npm, npmInstall, ourClosure, packedRoot } from './support/npm.js';

/**
 * What a new user does: `nest new` (11 and 12, from the registry, at test time
 * so CI follows what it generates today), then `npm install <tarball>` and
 * nothing else, mount TurnsModule as docs/install.md shows, and the project's
 * own `npm run test:e2e` — its generated e2e untouched, plus two of ours: the
 * reference runtime's, and the example host runtime's (docs/examples/host-runtime,
 * copied from the installed package into src/, as a host copies it).
 */
const TEMPLATE = join(__dirname, 'hosts', 'nest-new');
const NPX = process.platform === 'win32' ? 'npx.cmd' : 'npx';

/** The edit docs/install.md asks of a generated src/app.module.ts. */
function mountTurnsModule(source: string): string {
  const mounted = source
    .replace(
      "import { Module } from '@nestjs/common';\n",
      "import { Module } from '@nestjs/common';\nimport { TurnsModule } from 'nest-turn-status';\nimport { RuntimeModule } from 'nest-turn-status/runtime';\n",
    )
    // Ours first in `imports`, whatever the scaffold lists there (Nest 12's lists @nestjs/observe's module).
    .replace(
      /@Module\(\{\n {2}imports: \[(\]?)/,
      (_match, empty: string) =>
        'const runtime = RuntimeModule.forRoot({ workspaces: [process.cwd()], dataDir: `${process.cwd()}/.turns-data` });\n\n' +
        `@Module({\n  imports: [runtime, TurnsModule.forRoot({ imports: [runtime] })${empty ? ']' : ','}`,
    );
  if (!mounted.includes('TurnsModule.forRoot(') || !mounted.includes("from 'nest-turn-status/runtime'")) {
    throw new Error(`nest new's app.module.ts changed; mount TurnsModule by hand:\n${source}`);
  }
  return mounted;
}

describe('a project made by nest new', () => {
  jest.setTimeout(900_000);
  let work: string;
  let tarball: string;

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'turns-nest-new-'));
    ({ tarball } = packedRoot());
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it.each([11, 12])('on Nest %i: npm install <tarball> alone, TurnsModule mounted, its own npm run test:e2e passes', (major) => {
    const name = `host${major}`;
    execFileSync(NPX, ['-y', `@nestjs/cli@${major}`, 'new', name, '--skip-git', '--skip-install', '--package-manager', 'npm'], {
      cwd: work,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const dir = join(work, name);
    const generated = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
      type?: string;
      dependencies: Record<string, string>;
      devDependencies?: Record<string, string>;
    };
    // What the scaffold itself resolves to, before anything of ours (the lockfile only: nothing is installed twice).
    npm(['install', '--package-lock-only', '--no-audit', '--no-fund', '--prefer-offline'], dir);
    const before = lockedPackages(dir);

    const appModule = join(dir, 'src', 'app.module.ts');
    writeFileSync(appModule, mountTurnsModule(readFileSync(appModule, 'utf8')));
    const esm = generated.type === 'module';
    const spec = readFileSync(join(TEMPLATE, 'turns.e2e-spec.ts'), 'utf8');
    writeFileSync(join(dir, 'test', 'turns.e2e-spec.ts'), esm ? spec.replace("'./../src/app.module'", "'./../src/app.module.js'") : spec);

    npmInstall(dir, tarball);
    const nodeModules = join(dir, 'node_modules');
    // Whatever the scaffold holds today (it is upstream's to change), our install adds one dependency, ours, and in the
    // lockfile only what ours brings; it removes nothing and moves no version the scaffold had chosen.
    const installed = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as typeof generated;
    expect(installed.dependencies).toEqual({ ...generated.dependencies, 'nest-turn-status': expect.stringContaining('.tgz') });
    expect(installed.devDependencies).toEqual(generated.devDependencies);
    expect(lockDiff(before, lockedPackages(dir))).toEqual({ added: ourClosure(dir, before), removed: [], changed: [] });
    copyExample(join(nodeModules, 'nest-turn-status', 'docs', 'examples', 'host-runtime'), join(dir, 'src', 'host-runtime'), esm);
    const hostSpec = readFileSync(join(TEMPLATE, 'host-runtime.e2e-spec.ts'), 'utf8');
    writeFileSync(join(dir, 'test', 'host-runtime.e2e-spec.ts'), esm ? hostSpec.replace("/app.module'", "/app.module.js'") : hostSpec);
    expect(copiesOf(nodeModules, '@nestjs/core')).toEqual([join(nodeModules, '@nestjs', 'core')]);
    const core = JSON.parse(readFileSync(join(nodeModules, '@nestjs', 'core', 'package.json'), 'utf8')) as { version: string };
    expect(Number(core.version.split('.')[0])).toBe(major);
    // The optional peers stay out: mounting TurnsModule needs none of them.
    for (const absent of ['@nestjs/swagger', '@nestjs/platform-fastify', '@agentclientprotocol/sdk', 'ioredis'])
      expect({ absent, copies: copiesOf(nodeModules, absent) }).toEqual({ absent, copies: [] });

    expect(testE2e(dir)).toMatchObject({ status: 0, passed: true });
    // It type-checks against the package's types as `nest build` would (nodenext; Nest 11 also the older node10).
    const resolutions = esm ? [[]] : [[], ['--module', 'commonjs', '--moduleResolution', 'node10', '--resolvePackageJsonExports', 'false']];
    for (const resolution of resolutions) {
      const tsc = spawnSync(
        process.execPath,
        [join(nodeModules, 'typescript', 'bin', 'tsc'), '--noEmit', '-p', 'tsconfig.json', ...resolution],
        {
          cwd: dir,
          encoding: 'utf8',
        },
      );
      expect({ resolution, stdout: tsc.stdout, status: tsc.status }).toEqual({ resolution, stdout: '', status: 0 });
    }
    // Swagger added as docs/install.md says (the host's own major): its decorators are then the real ones; the same e2e passes.
    npmInstall(dir, `@nestjs/swagger@^${major}`);
    expect(copiesOf(nodeModules, '@nestjs/swagger')).toHaveLength(1);
    expect(testE2e(dir)).toMatchObject({ status: 0, passed: true });
  });
});

/**
 * The shipped example host, copied as a host copies it; a CommonJS project's imports lose the `.js`
 * suffix (its Jest resolves files as named).
 */
function copyExample(from: string, to: string, esm: boolean): void {
  mkdirSync(to);
  for (const name of readdirSync(from).filter((file) => file.endsWith('.ts'))) {
    const source = readFileSync(join(from, name), 'utf8');
    writeFileSync(join(to, name), esm ? source : source.replace(/(from '\.\/[^']+)\.js'/g, "$1'"));
  }
}

/** The project's own `npm run test:e2e`: its exit status, and whether its 4 tests (the generated one and ours) passed. */
/** The project's own `npm run test:e2e`; a failing run's output tail goes with the answer, so the failure shows why. */
function testE2e(dir: string): { status: number | null; passed: boolean; output?: string } {
  const run = spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', 'test:e2e'], { cwd: dir, encoding: 'utf8' });
  const output = stripVTControlCharacters(`${run.stdout}\n${run.stderr}`);
  const passed = /Tests:?\s+4 passed/.test(output);
  return { status: run.status, passed, ...(run.status === 0 && passed ? {} : { output: output.slice(-4000) }) };
}

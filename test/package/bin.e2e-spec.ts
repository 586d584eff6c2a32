import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, cpSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PACKAGE_VERSION } from '../../src/common/package-version.js';
import { eventually } from '../support/eventually.js';
import { freePort } from '../support/redis-server.js';
import { npm, pack, ROOT } from './support/npm.js';

/** What a build and a pack are made from: a copy, so this spec never rebuilds the dist/ other suites read. */
const SOURCES = [
  'src',
  'scripts',
  'docs',
  'package.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'tsconfig.cjs.json',
  'README.md',
  'LICENSE',
];

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The bin run as a shell runs it: by its path, through its `#!` line (a bin that is not executable fails here). */
const runBin = (path: string, ...args: string[]) => execFileSync(path, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** The package's bin stays executable after any rebuild, and after a pack and an install (docs/install.md). */
describe('the package bin', () => {
  jest.setTimeout(20 * 60_000);
  let checkout: string;
  let project: string;
  let daemon: ChildProcess | undefined;

  beforeAll(() => {
    checkout = mkdtempSync(join(tmpdir(), 'turns-bin-checkout-'));
    for (const entry of SOURCES) cpSync(join(ROOT, entry), join(checkout, entry), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules'), join(checkout, 'node_modules'));
    project = mkdtempSync(join(tmpdir(), 'turns-bin-project-'));
  });
  afterAll(() => {
    daemon?.kill('SIGKILL');
    rmSync(checkout, { recursive: true, force: true });
    rmSync(project, { recursive: true, force: true });
  });

  it('is executable after npm run build, and a rebuild leaves a daemon running from dist/ serving', async () => {
    const bin = join(checkout, 'dist', 'daemon', 'bin.js');
    npm(['run', 'build'], checkout);
    expect(executable(bin)).toBe(true);
    expect(runBin(bin, '--version').trim()).toBe(PACKAGE_VERSION);

    // A daemon started from this dist/, then a rebuild (as a second `npm start` with changed sources does).
    const port = await freePort();
    const dataDir = mkdtempSync(join(tmpdir(), 'turns-bin-data-'));
    daemon = spawn(process.execPath, [bin, 'serve'], {
      env: { ...process.env, TURNS_PORT: String(port), TURNS_DATA_DIR: dataDir, TURNS_WORKSPACES: dataDir, TURNS_LOG: 'warn' },
      stdio: 'ignore',
    });
    const health = () => fetch(`http://127.0.0.1:${port}/health`).then((res) => (res.status === 200 ? true : undefined));
    await eventually(health, 120_000, 100);
    writeFileSync(join(checkout, 'src', 'rebuild-marker.ts'), 'export const REBUILT = true;\n');
    npm(['start', '--', '--version'], checkout); // prestart rebuilds: the sources changed
    expect(executable(bin)).toBe(true);
    expect(runBin(bin, '--version').trim()).toBe(PACKAGE_VERSION);
    // The running daemon's dist/ was swapped, never emptied under it: it still answers, and loads what it imports late.
    expect(await health()).toBe(true);
    const session = await fetch(`http://127.0.0.1:${port}/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(session.status).toBe(200);
    daemon.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('is executable after npm pack and an install in a fresh project', () => {
    // Built above: the pack ships that build (its prepack would only build the same again).
    const { tarball, files } = pack(checkout, project);
    expect(files).toContain('dist/daemon/bin.js');
    expect(files).not.toContain('dist/.build-stamp');
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'fresh', version: '1.0.0', private: true }));
    // From npm's cache: the package's dependencies are there after the repo's own install.
    try {
      npm(['install', '--offline', '--no-audit', '--no-fund', tarball], project);
    } catch {
      npm(['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], project);
    }
    expect(executable(join(project, 'node_modules', 'nest-turn-status', 'dist', 'daemon', 'bin.js'))).toBe(true);
    expect(runBin(join(project, 'node_modules', '.bin', 'nest-turn-status'), '--version').trim()).toBe(PACKAGE_VERSION);
  });
});

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtOnce, contentKey } from '../../support/built-once.js';

/** The repository root. */
export const ROOT = join(__dirname, '..', '..', '..');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** `npm args` in `cwd`; its stdout. npm's own cache keeps repeated runs fast. */
export function npm(args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  return execFileSync(NPM, args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** `npm install` of what is named, quietly and from the cache when it can. */
export function npmInstall(cwd: string, ...specs: string[]): string {
  return npm(['install', '--no-audit', '--no-fund', '--prefer-offline', ...specs], cwd);
}

/** Packs the package in `dir` (its `prepack` runs) into `dest`; the tarball's path and the files it ships. */
export function pack(dir: string, dest: string): { tarball: string; files: string[] } {
  const [packed] = JSON.parse(npm(['pack', '--json', '--pack-destination', dest], dir)) as Array<{
    filename: string;
    files: Array<{ path: string }>;
  }>;
  return { tarball: join(dest, packed!.filename), files: packed!.files.map((file) => file.path) };
}

/**
 * This checkout packed (`npm pack`, its `prepack` build included) once per content across the package specs and their
 * workers: two specs packing at once would each `rm -rf dist` under the other. The tarball and the files it ships.
 */
export function packedRoot(): { tarball: string; files: string[] } {
  const key = contentKey(ROOT, [
    'src',
    'docs',
    'scripts',
    'README.md',
    'LICENSE',
    'package.json',
    'tsconfig.json',
    'tsconfig.build.json',
    'tsconfig.cjs.json',
  ]);
  const dir = builtOnce(join(tmpdir(), `turns-packed-${key}`), (into) => {
    mkdirSync(into, { recursive: true });
    const { files } = pack(ROOT, into);
    writeFileSync(join(into, 'files.json'), JSON.stringify(files));
  });
  const tarball = readdirSync(dir).find((name) => name.endsWith('.tgz'))!;
  return { tarball: join(dir, tarball), files: JSON.parse(readFileSync(join(dir, 'files.json'), 'utf8')) as string[] };
}

/** Every installed copy of a package anywhere in a project's tree. */
export function copiesOf(nodeModules: string, name: string): string[] {
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

/** The packages a project's node_modules holds (by name) and its size in bytes. */
export function installed(dir: string): { packages: string[]; bytes: number } {
  const tree = npm(['ls', '--all', '--parseable'], dir).trim().split('\n').slice(1);
  const du = execFileSync('du', ['-sb', join(dir, 'node_modules')], { encoding: 'utf8' });
  const names = tree.map((path) => path.slice(path.lastIndexOf('node_modules/') + 13));
  return { packages: [...new Set(names)].sort(), bytes: Number(du.split('\t')[0]) };
}

interface LockEntry {
  version?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

function lockOf(dir: string): Record<string, LockEntry> {
  const lock = JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  return Object.fromEntries(Object.entries(lock.packages).filter(([path]) => path !== ''));
}

/** Every package a project's lockfile holds: its path in node_modules → its version. */
export function lockedPackages(dir: string): Map<string, string> {
  return new Map(Object.entries(lockOf(dir)).map(([path, entry]) => [path, entry.version ?? '']));
}

/** What changed between two lockfiles: paths added and removed, and paths whose version moved (`path@from→to`). */
export function lockDiff(before: Map<string, string>, after: Map<string, string>) {
  return {
    added: [...after.keys()].filter((path) => !before.has(path)).sort(),
    removed: [...before.keys()].filter((path) => !after.has(path)).sort(),
    changed: [...before]
      .filter(([path, version]) => after.has(path) && after.get(path) !== version)
      .map(([p, v]) => `${p}@${v}→${after.get(p)}`),
  };
}

/**
 * The lockfile paths our package brings into a project and that `before` did not hold: `node_modules/nest-turn-status`
 * and what it needs, transitively, as Node resolves each name from where it is required (its optional peers excluded).
 */
export function ourClosure(dir: string, before: Map<string, string>): string[] {
  const lock = lockOf(dir);
  const resolve = (from: string, name: string): string | undefined => {
    for (let base = from; ; base = base.slice(0, Math.max(0, base.lastIndexOf('/node_modules/')))) {
      const candidate = `${base ? `${base}/` : ''}node_modules/${name}`;
      if (lock[candidate]) return candidate;
      if (!base) return undefined;
    }
  };
  const seen = new Set<string>();
  const visit = (path: string) => {
    if (seen.has(path)) return;
    seen.add(path);
    const entry = lock[path]!;
    const optionalPeer = (name: string) => entry.peerDependenciesMeta?.[name]?.optional === true;
    const names = [
      ...Object.keys(entry.dependencies ?? {}),
      ...Object.keys(entry.optionalDependencies ?? {}),
      ...Object.keys(entry.peerDependencies ?? {}).filter((name) => !optionalPeer(name)),
    ];
    for (const name of names) {
      const found = resolve(path, name);
      if (found) visit(found);
    }
  };
  visit('node_modules/nest-turn-status');
  return [...seen].filter((path) => !before.has(path)).sort();
}

import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

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

import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { builtOnce, contentKey } from './built-once.js';

const ROOT = join(__dirname, '..', '..');

/**
 * `src/` compiled to `.test-dist/<name>/` for specs that run the daemon as a
 * child process (signals, memory): each suite gets its own copy, so suites
 * running in parallel never share a half-written directory or one another's
 * writes. The compilation itself (tsc, the slow part) runs once per content of
 * `src/` across workers and runs (test/support/built-once.ts). Returns the
 * output directory.
 */
export function compileSources(name: string): string {
  const key = contentKey(ROOT, ['src', 'tsconfig.json', 'tsconfig.build.json', 'package.json']);
  const compiled = builtOnce(join(ROOT, '.test-dist', '.compiled', key), (into) => {
    execFileSync(
      process.execPath,
      [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', into],
      { cwd: ROOT, stdio: 'pipe' },
    );
    if (!existsSync(join(into, 'daemon', 'bin.js'))) throw new Error(`compilation to ${into} produced no daemon`);
  });
  const outDir = join(ROOT, '.test-dist', name);
  rmSync(outDir, { recursive: true, force: true });
  cpSync(compiled, outDir, { recursive: true });
  return outDir;
}

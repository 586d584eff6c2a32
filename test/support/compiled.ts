import { execFileSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/**
 * Compiles `src/` to `.test-dist/<name>/` for specs that run the daemon as a
 * child process (signals, memory): each suite gets its own output, so suites
 * running in parallel never share a half-written directory. Returns the
 * output directory.
 */
export function compileSources(name: string): string {
  const outDir = join(ROOT, '.test-dist', name);
  rmSync(outDir, { recursive: true, force: true });
  execFileSync(
    process.execPath,
    [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', outDir],
    {
      cwd: ROOT,
      stdio: 'pipe',
    },
  );
  if (!existsSync(join(outDir, 'daemon', 'bin.js'))) throw new Error(`compilation to ${outDir} produced no daemon`);
  return outDir;
}

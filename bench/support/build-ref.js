// A past commit of this package, built from git for an A/B against the
// working tree: its sources into a temporary directory that uses this
// checkout's node_modules (so a ref whose dependencies differ may not build).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** The directory `ref` was built in (its `dist/`), or `undefined` when git, the ref or its build is not there. */
export function buildRef(ref) {
  const dir = mkdtempSync(join(tmpdir(), 'turns-ref-'));
  try {
    const archive = execFileSync('git', ['archive', ref, 'src', 'tsconfig.json', 'tsconfig.build.json', 'package.json'], {
      maxBuffer: 64 * 1024 * 1024,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    execFileSync('tar', ['-x', '-C', dir], { input: archive });
    symlinkSync(resolve('node_modules'), join(dir, 'node_modules'));
    execFileSync(process.execPath, [resolve('node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
      cwd: dir,
      stdio: 'ignore',
    });
    return dir;
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
}

import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

/** Sleeps the calling thread (a build is synchronous, so is waiting for another worker's). */
const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** A hash of these files and of every file under these folders (name and content): the key of what is built from them. */
export function contentKey(root: string, paths: string[]): string {
  const hash = createHash('sha256');
  const add = (path: string) => {
    if (!existsSync(path)) return;
    if (statSync(path).isDirectory()) {
      for (const entry of readdirSync(path).sort()) add(join(path, entry));
      return;
    }
    hash.update(relative(root, path)).update('\0').update(readFileSync(path)).update('\0');
  };
  for (const path of paths) add(join(root, path));
  return hash.digest('hex').slice(0, 16);
}

/**
 * `dir`, built by `build` once across Jest's workers and runs: the first caller builds into a temporary sibling renamed
 * into place, the others wait for it; a later run with the same `dir` (its name carries a content key) reuses it. A
 * lock left by a killed build is taken over after `staleMs`.
 */
export function builtOnce(dir: string, build: (into: string) => void, staleMs = 15 * 60_000): string {
  const lock = `${dir}.lock`;
  mkdirSync(dirname(dir), { recursive: true });
  for (const deadline = Date.now() + 2 * staleMs; !existsSync(dir); sleep(250)) {
    if (Date.now() > deadline) throw new Error(`${dir} was not built within ${2 * staleMs} ms`);
    try {
      mkdirSync(lock);
    } catch {
      if (existsSync(lock) && Date.now() - statSync(lock).mtimeMs > staleMs) rmSync(lock, { recursive: true, force: true });
      continue;
    }
    try {
      if (existsSync(dir)) break;
      const into = `${dir}.${process.pid}.tmp`;
      rmSync(into, { recursive: true, force: true });
      build(into);
      renameSync(into, dir);
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
  return dir;
}

import { randomUUID } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * Syncs a directory, so a file created or renamed in it survives a power
 * loss as well as its contents do (POSIX: the entry is the directory's data).
 */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Writes `text` to a new file at `path` (mode 0600; `EEXIST` if it exists) and
 * syncs it: the first half of a write that a `link` or `rename` then puts in
 * place whole, so no reader ever sees it half written.
 */
export async function writeSyncedFile(path: string, text: string): Promise<void> {
  const handle = await open(path, 'wx', 0o600);
  try {
    if (text) await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Makes `dir` and any missing parents, and syncs the parent of each one made
 * (up to the topmost): a directory made is found after a power loss only once
 * its entry in its parent is synced.
 */
export async function makeDirectorySynced(dir: string, mode?: number): Promise<void> {
  const made = await mkdir(dir, { recursive: true, ...(mode !== undefined && { mode }) });
  if (made === undefined) return;
  for (let entry = dir; ; entry = dirname(entry)) {
    await syncDirectory(dirname(entry));
    if (entry === made || entry === dirname(entry)) break;
  }
}

/**
 * Writes `file` through a temp file renamed over it, synced first, then the
 * directory synced: a crash leaves the old or the new file, and a power loss
 * after this resolves the new one. Directories it makes are synced into
 * their parents; with `createDir: false` a missing directory is an ENOENT.
 */
export async function writeAtomically(file: string, text: string, { createDir = true } = {}): Promise<void> {
  const dir = dirname(file);
  if (createDir) await makeDirectorySynced(dir);
  const temp = `${file}.${randomUUID()}.tmp`;
  try {
    await writeSyncedFile(temp, text);
    await rename(temp, file);
  } catch (error) {
    // A write that failed (a full disk, say) leaves no temp file behind; the caller gets its error.
    await rm(temp, { force: true }).catch(() => undefined);
    throw error;
  }
  await syncDirectory(dir);
}

import { open } from 'node:fs/promises';

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

import { constants } from 'node:fs';
import { mkdir, open, readdir, readFile, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { syncDirectory } from '../common/sync-directory.js';
import { isSessionId } from '../transcript/transcript-paths.js';

/** A fence's file name: the fence in 15 digits, so names sort as numbers. */
const FENCE_NAME = /^\d{15}$/;

/** The highest fence among a directory's names (0 when none is a fence's). */
export function highestFenceOf(names: readonly string[]): number {
  let highest = 0;
  for (const name of names) if (FENCE_NAME.test(name)) highest = Math.max(highest, Number(name));
  return highest;
}

/**
 * The highest lease fence each session has had, kept on the shared data dir:
 * one file per fence, `<dataDir>/cluster/fence-files/<sessionId>/<fence>`,
 * created with `O_EXCL` and synced with its directory (and a directory made
 * for it, in its parent), the highest name winning. A record only ever adds a
 * name, so two racing records can never lower the fence, and a crash leaves a
 * fence recorded or not, never torn.
 * Redis's fence counter starts over when Redis loses its data; this record
 * does not, so a claim made after that still outranks the owner before it.
 * Without a directory it records nothing.
 *
 * An unreadable fence is an error, never 0: a caller that cannot read it
 * cannot know it is not outranked. The one-file layout of earlier versions
 * (`cluster/fences/<sessionId>`) is still read, so a rolling upgrade keeps
 * its fences.
 *
 * @publicApi
 */
export class SessionFences {
  private readonly dir?: string;
  private readonly legacyDir?: string;

  constructor(dataDir?: string) {
    this.dir = dataDir === undefined ? undefined : join(dataDir, 'cluster', 'fence-files');
    this.legacyDir = dataDir === undefined ? undefined : join(dataDir, 'cluster', 'fences');
  }

  /** The highest fence recorded for the session; 0 when none is. Throws when it cannot be read. */
  async highest(sessionId: string): Promise<number> {
    if (!this.dir) return 0;
    const names = await readdir(this.dirOf(sessionId)).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return [];
      throw error;
    });
    return Math.max(highestFenceOf(names), await this.legacy(sessionId));
  }

  /**
   * Records `fence` unless a higher one is already recorded: its own file,
   * synced, and the directory synced, before this resolves. Lower fences'
   * files are removed afterwards (best effort; the highest stays).
   */
  async record(sessionId: string, fence: number): Promise<void> {
    if (!this.dir) return;
    if (!Number.isSafeInteger(fence) || fence <= 0) throw new Error('invalid fence');
    const dir = this.dirOf(sessionId);
    if ((await this.highest(sessionId)) >= fence) return;
    const made = await mkdir(dir, { recursive: true, mode: 0o700 });
    // A directory made here is found after a power loss only once its parent is synced: each one made, up to the first.
    for (let entry = dir; made !== undefined; entry = dirname(entry)) {
      await syncDirectory(dirname(entry));
      if (entry === made) break;
    }
    const name = String(fence).padStart(15, '0');
    try {
      const handle = await open(join(dir, name), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
    } catch (error) {
      // Recorded already (the same claim twice): what matters is that it is there.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    await syncDirectory(dir);
    await this.prune(dir, name);
  }

  private async prune(dir: string, kept: string): Promise<void> {
    const names = await readdir(dir).catch(() => [] as string[]);
    for (const name of names) if (FENCE_NAME.test(name) && name < kept) await rm(join(dir, name), { force: true }).catch(() => undefined);
  }

  /** The one-file fence of earlier versions: 0 when absent; an empty or garbled one is an error. */
  private async legacy(sessionId: string): Promise<number> {
    let text: string;
    try {
      text = await readFile(join(this.legacyDir!, sessionId), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw error;
    }
    const fence = Number(text.trim());
    if (text.trim() === '' || !Number.isSafeInteger(fence) || fence < 0) throw new Error(`unreadable fence for session ${sessionId}`);
    return fence;
  }

  private dirOf(sessionId: string): string {
    if (!isSessionId(sessionId)) throw new Error('invalid session id');
    return join(this.dir!, sessionId);
  }
}

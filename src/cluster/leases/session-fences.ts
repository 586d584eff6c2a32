import { randomUUID } from 'node:crypto';
import { link, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { makeDirectorySynced, syncDirectory, writeSyncedFile } from '../../common/durable-files.js';
import { isSessionId } from '../../transcript/transcript-paths.js';

/** A fence's file name: the fence in 15 digits, so names sort as numbers. */
const FENCE_NAME = /^\d{15}$/;
/** A fence file being written (`.<fence>.<uuid>.tmp`), linked to its name once synced. */
const PENDING_NAME = /^\.(\d{15})\.[0-9a-f-]{36}\.tmp$/;

/** Who made a claim, as its fence file records it: the node a later claimer asks to let go (docs/cluster.md#inv-lease-5). */
export interface FenceHolder {
  node: string;
  url: string;
}

/** The highest fence recorded, with its holder when the file names one (files of earlier versions are empty). */
export interface RecordedFence {
  fence: number;
  holder?: FenceHolder;
}

/** The holder a fence file's text names; `undefined` for an empty (earlier version's) or torn one. */
export function holderOf(text: string): FenceHolder | undefined {
  try {
    const { node, url } = JSON.parse(text) as Partial<FenceHolder>;
    return typeof node === 'string' && typeof url === 'string' ? { node, url } : undefined;
  } catch {
    return undefined;
  }
}

function fenceName(fence: number): string {
  return String(fence).padStart(15, '0');
}

/** The highest fence among a directory's names (0 when none is a fence's). */
export function highestFenceOf(names: readonly string[]): number {
  let highest = 0;
  for (const name of names) if (FENCE_NAME.test(name)) highest = Math.max(highest, Number(name));
  return highest;
}

/**
 * The highest lease fence each session has had, one file per fence on the shared data dir (docs/cluster.md#inv-lease-1,
 * #inv-lease-7; its layout: docs/decisions.md#lease-fence-files). Without a directory it records nothing.
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
   * The highest fence recorded and the node that claimed it (none for a file
   * of an earlier version). Throws
   * when the fence cannot be read, as {@link highest} does.
   */
  async latest(sessionId: string): Promise<RecordedFence> {
    for (;;) {
      const fence = await this.highest(sessionId);
      if (fence === 0 || !this.dir) return { fence };
      try {
        return { fence, holder: holderOf(await readFile(join(this.dirOf(sessionId), fenceName(fence)), 'utf8')) };
      } catch (error) {
        // Pruned since it was listed: a higher fence was recorded meanwhile, read that one. Anything else is unreadable.
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
  }

  /**
   * Records `fence` unless a higher one is already recorded: its own file
   * (naming `holder`), synced, and the directory synced, before this
   * resolves. Lower fences' files are removed afterwards (best effort; the
   * highest stays).
   */
  async record(sessionId: string, fence: number, holder?: FenceHolder): Promise<void> {
    if (!this.dir) return;
    if (!Number.isSafeInteger(fence) || fence <= 0) throw new Error('invalid fence');
    const dir = this.dirOf(sessionId);
    if ((await this.highest(sessionId)) >= fence) return;
    await makeDirectorySynced(dir, 0o700);
    const name = fenceName(fence);
    const pending = join(dir, `.${name}.${randomUUID()}.tmp`);
    try {
      await writeSyncedFile(pending, holder ? JSON.stringify({ node: holder.node, url: holder.url }) : '');
      await link(pending, join(dir, name));
    } catch (error) {
      const { code } = error as NodeJS.ErrnoException;
      // Recorded already (the same claim twice): what matters is that it is there.
      if (code === 'EEXIST') return this.synced(dir, name);
      // Pruned by the record of a higher fence meanwhile: outranked, as when that one is found first.
      if (code === 'ENOENT' && (await this.highest(sessionId)) > fence) return;
      throw error;
    } finally {
      await rm(pending, { force: true });
    }
    await this.synced(dir, name);
  }

  /** The directory synced once the fence's name is in it, then lower fences pruned. */
  private async synced(dir: string, name: string): Promise<void> {
    await syncDirectory(dir);
    await this.prune(dir, name);
  }

  /**
   * Removes lower fences' files, and pending files of lower fences (a crash
   * left them, or a record that lost the race, which links nothing now):
   * by fence, never by age, so no clock decides (best effort).
   */
  private async prune(dir: string, kept: string): Promise<void> {
    const names = await readdir(dir).catch(() => [] as string[]);
    for (const name of names) {
      const fence = FENCE_NAME.test(name) ? name : PENDING_NAME.exec(name)?.[1];
      if (fence !== undefined && fence < kept) await rm(join(dir, name), { force: true }).catch(() => undefined);
    }
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

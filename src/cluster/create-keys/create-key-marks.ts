import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { link, open, readFile, rename, rm, stat, utimes } from 'node:fs/promises';
import { join } from 'node:path';

/** A mark's name: the record's (the sha256 of the key's scope) and `.mark`. */
const MARK_NAME = /^[0-9a-f]{64}$/;

/** What {@link CreateKeyMarks.claim} found: the mark is this request's, or another live request's (its text). */
export type MarkClaim = { claimed: true } | { claimed: false; held: string };

/** True when a mark last touched at `touchedMs` is stale at `nowMs`: its holder has not touched it for `staleMs`. */
export function isStaleMark(touchedMs: number, nowMs: number, staleMs: number): boolean {
  return nowMs - touchedMs > staleMs;
}

/**
 * In-flight marks of create keys on the shared data dir, beside their records, its text the request's mark
 * (docs/cluster.md#inv-key-2, #inv-key-6). Not synced: docs/decisions.md#create-keys-on-the-data-dir.
 */
export class CreateKeyMarks {
  constructor(
    private readonly dir: string,
    private readonly staleMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Marks `name` in flight with `text`, taking over a stale mark; or the live mark's text. */
  async claim(name: string, text: string): Promise<MarkClaim> {
    const path = this.pathOf(name);
    for (let attempt = 0; ; attempt++) {
      try {
        const handle = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
        try {
          await handle.writeFile(text);
          // Stamped by the nodes' clocks, never the file server's: the age is judged by a node.
          const seconds = this.now() / 1_000;
          await handle.utimes(seconds, seconds);
        } finally {
          await handle.close();
        }
        return { claimed: true };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const held = await this.live(path);
      if (held !== undefined || attempt > 0) return { claimed: false, held: held ?? '' };
    }
  }

  /** Keeps a mark of this request's fresh; false when it is not there any more (taken over). */
  async touch(name: string, text: string): Promise<boolean> {
    const path = this.pathOf(name);
    if ((await readFile(path, 'utf8').catch(() => undefined)) !== text) return false;
    const seconds = this.now() / 1_000;
    await utimes(path, seconds, seconds);
    return true;
  }

  /** Removes the mark while it is this request's (one taken over is left to its new holder). */
  async release(name: string, text: string): Promise<void> {
    const path = this.pathOf(name);
    // Moved away only when it reads as this request's: another's is not moved even for a moment.
    if ((await readFile(path, 'utf8').catch(() => undefined)) !== text) return;
    await this.moveAway(path, (moved) => moved === text);
  }

  /** The live mark's text; `undefined` when there is none, after removing a stale one. */
  private async live(path: string): Promise<string | undefined> {
    let text: string;
    let touchedMs: number;
    try {
      [text, { mtimeMs: touchedMs }] = await Promise.all([readFile(path, 'utf8'), stat(path)]);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    // Stamped in whole ms; a file time set from a float reads back up to a µs under it (1796323402494 → …493.999).
    if (!isStaleMark(Math.round(touchedMs), this.now(), this.staleMs)) return text;
    await this.moveAway(path, (moved) => moved === text);
    return undefined;
  }

  /** Moves the mark away, and removes it when `removable` says what was moved may go; otherwise puts it back (a newer mark there meanwhile wins). */
  private async moveAway(path: string, removable: (moved: string) => boolean): Promise<void> {
    const moved = `${path}.${randomUUID()}.tmp`;
    try {
      await rename(path, moved);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    try {
      if (removable(await readFile(moved, 'utf8'))) return;
      await link(moved, path).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw error;
      });
    } finally {
      await rm(moved, { force: true });
    }
  }

  private pathOf(name: string): string {
    if (!MARK_NAME.test(name)) throw new Error('invalid create key mark name');
    return join(this.dir, `${name}.mark`);
  }
}

import { constants } from 'node:fs';
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { SAFE_OPEN } from './transcript-snapshot.js';
import { NotRegularFileError } from './transcript-errors.js';

const NEWLINE = 0x0a;

/**
 * Appends lines to one transcript through a handle kept open between writes, one call at a time, in call order;
 * how it survives a crash, a torn line and a failed write is docs/decisions.md#transcript-appends.
 */
export class TranscriptAppender {
  private handle?: FileHandle;
  private closed = false;
  /** The write or close under way; the next one starts after it. */
  private busy: Promise<unknown> = Promise.resolve();

  constructor(readonly path: string) {}

  /**
   * Writes `line` and its newline; `false` when the appender is closed (nothing written). Throws the file
   * error (the handle is closed then, and the next append opens the file again).
   */
  append(line: string): Promise<boolean> {
    const write = this.busy.then(() => this.write(line));
    this.busy = write.catch(() => undefined);
    return write;
  }

  /**
   * Flushes what was appended to the disk (`fdatasync`) once the appends
   * called before it are done. A failure closes the handle: after a failed
   * sync the file's state is unknown, so nothing is taken for written.
   */
  sync(): Promise<void> {
    const sync = this.busy.then(async () => {
      try {
        await this.handle?.datasync();
      } catch (error) {
        await this.release();
        throw error;
      }
    });
    this.busy = sync.catch(() => undefined);
    return sync;
  }

  /** Closes the transcript once the appends called before it are done; later appends write nothing. */
  close(): Promise<void> {
    const close = this.busy.then(() => {
      this.closed = true;
      return this.release();
    });
    this.busy = close;
    return close;
  }

  private async write(line: string): Promise<boolean> {
    if (this.closed) return false;
    try {
      this.handle ??= await openRepaired(this.path);
      await this.handle.write(`${line}\n`);
      return true;
    } catch (error) {
      await this.release();
      throw error;
    }
  }

  private async release(): Promise<void> {
    const handle = this.handle;
    this.handle = undefined;
    await handle?.close().catch(() => undefined);
  }
}

/** Opens (creating) the transcript for appending, a regular file only, with a torn last line closed. */
async function openRepaired(path: string): Promise<FileHandle> {
  await mkdir(dirname(path), { recursive: true });
  const handle = await open(path, constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | SAFE_OPEN, 0o600);
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new NotRegularFileError();
    if (info.size > 0) {
      const last = Buffer.alloc(1);
      await handle.read(last, 0, 1, info.size - 1);
      if (last[0] !== NEWLINE) await handle.write('\n');
    }
    return handle;
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
}

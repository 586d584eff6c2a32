import { constants } from 'node:fs';
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { SAFE_OPEN } from './transcript-snapshot.js';
import { NotRegularFileError } from './transcript-errors.js';

const NEWLINE = 0x0a;

/**
 * Appends lines to one transcript through a handle kept open between writes.
 * Appends and the close run one at a time, in call order.
 *
 * Crash safety: the file is opened without following symlinks or blocking on
 * FIFOs, only as a regular file, and when it ends in a torn line (a crash or
 * a full disk mid-write) a newline is written first, so the fragment stays
 * one skipped line. A failed write closes the handle: the next append opens
 * the file again and repairs a tail that write may have torn. A transcript
 * is durable when the OS writes it back; the ledger asks for {@link sync}
 * (its `in_flight` record is what a `202` promises).
 *
 * {@link close} is final and waits for the write under way: a handle that
 * write is still opening is closed too, never left to the garbage collector
 * (an uncaught error on Node 26).
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

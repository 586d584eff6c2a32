import { constants } from 'node:fs';
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { SAFE_OPEN } from './transcript-snapshot.js';
import { NotRegularFileError } from './transcript-errors.js';

const NEWLINE = 0x0a;

/**
 * Appends lines to one transcript through a handle kept open between writes.
 * Callers serialize their calls (the recorder's queue does).
 *
 * Crash safety: the file is opened without following symlinks or blocking on
 * FIFOs, only as a regular file, and when it ends in a torn line (a crash or
 * a full disk mid-write) a newline is written first, so the fragment stays
 * one skipped line. A failed write closes the handle: the next append opens
 * the file again and repairs a tail that write may have torn. No fsync, as
 * before: a record is durable when the OS writes it back.
 */
export class TranscriptAppender {
  private handle?: FileHandle;

  constructor(readonly path: string) {}

  /** Writes `line` and its newline; throws the file error (the handle is closed then). */
  async append(line: string): Promise<void> {
    try {
      this.handle ??= await openRepaired(this.path);
      await this.handle.write(`${line}\n`);
    } catch (error) {
      await this.close();
      throw error;
    }
  }

  async close(): Promise<void> {
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

import { constants } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { parseRecord, type TranscriptRecord } from './transcript-record.js';

const CHUNK_BYTES = 256 * 1024;
const NEWLINE = 0x0a;

/** One line read backward: its record (if it parses) and its size in bytes. */
export interface SnapshotLine {
  record: TranscriptRecord | undefined;
  bytes: number;
  /** Byte offset where the line starts; the next backward read ends here. */
  start: number;
}

/** Thrown by {@link TranscriptSnapshot.linesBefore} for a line over the limit. */
export class LineTooLargeError extends Error {
  constructor(readonly bytes: number) {
    super('line too large');
  }
}

/** Thrown when the file no longer matches the snapshot (truncated, replaced, unreadable). */
export class SnapshotChangedError extends Error {}

/** Thrown when a transcript path names something other than a regular file (a symlink, directory, FIFO…). */
export class NotRegularFileError extends Error {
  constructor() {
    super('transcript is not a regular file');
  }
}

/**
 * Flags that never follow a symlink and never block on a FIFO: a transcript
 * path is opened only as the regular file it must be.
 */
export const SAFE_OPEN = constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * A fixed view of a JSONL file: the bytes `[0, size)` as they were when it was
 * opened, read backward in chunks so cost follows what is read, not the size
 * of the file.
 */
export class TranscriptSnapshot {
  private constructor(
    private readonly path: string,
    private readonly handle: FileHandle,
    readonly size: number,
    private readonly inode: number,
  ) {}

  /**
   * Opens a snapshot, or `undefined` when the file does not exist. A path
   * that is not a regular file throws {@link NotRegularFileError}.
   */
  static async open(path: string): Promise<TranscriptSnapshot | undefined> {
    let handle: FileHandle;
    try {
      handle = await open(path, constants.O_RDONLY | SAFE_OPEN);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return undefined;
      if (code === 'ELOOP' || code === 'ENXIO') throw new NotRegularFileError();
      throw new SnapshotChangedError();
    }
    let info;
    try {
      info = await handle.stat();
    } catch {
      await handle.close().catch(() => undefined);
      throw new SnapshotChangedError();
    }
    if (!info.isFile()) {
      await handle.close().catch(() => undefined);
      throw new NotRegularFileError();
    }
    return new TranscriptSnapshot(path, handle, info.size, info.ino);
  }

  /**
   * Lines ending at or before `end`, newest first. A final line without its
   * newline (a torn append) parses as no record and is skipped by callers. A
   * line over `maxLineBytes` throws {@link LineTooLargeError} — or, with
   * `skipOversized`, is passed over as no record without being held in memory.
   */
  async *linesBefore(end: number, maxLineBytes: number, skipOversized = false): AsyncGenerator<SnapshotLine> {
    let position = end;
    let carry: Buffer[] = [];
    let carryBytes = 0;
    let lineEnd = end;
    // A trailing newline closes the last line; it is not an empty line of its own.
    if (end > 0 && (await this.readByte(end - 1)) === NEWLINE) lineEnd = end - 1;
    position = lineEnd;
    while (position > 0) {
      const start = Math.max(0, position - CHUNK_BYTES);
      const chunk = await this.read(start, position - start);
      let cursor = chunk.length;
      while (cursor > 0) {
        const i = chunk.lastIndexOf(NEWLINE, cursor - 1);
        if (i < 0) break;
        const piece = chunk.subarray(i + 1, cursor);
        const bytes = carryBytes + piece.length;
        yield bytes > maxLineBytes && skipOversized
          ? { record: undefined, bytes: bytes + 1, start: start + i + 1 }
          : this.line([piece, ...carry], bytes, start + i + 1, maxLineBytes);
        carry = [];
        carryBytes = 0;
        cursor = i;
      }
      const rest = chunk.subarray(0, cursor);
      carryBytes += rest.length;
      // An oversized line being skipped is only counted, never held.
      carry = carryBytes > maxLineBytes && skipOversized ? [] : [rest, ...carry];
      if (carryBytes > maxLineBytes && !skipOversized) throw new LineTooLargeError(carryBytes);
      position = start;
    }
    if (carryBytes > 0) {
      yield carryBytes > maxLineBytes
        ? { record: undefined, bytes: carryBytes + 1, start: 0 }
        : this.line(carry, carryBytes, 0, maxLineBytes);
    }
  }

  /** Fails when the file on disk no longer holds the snapshot's bytes at its path. */
  async assertUnchanged(): Promise<void> {
    try {
      const info = await stat(this.path);
      if (info.ino !== this.inode || info.size < this.size) throw new SnapshotChangedError();
    } catch {
      throw new SnapshotChangedError();
    }
  }

  /** The bytes of one line that a backward walk reported at `start`. */
  async lineAt(start: number, bytes: number): Promise<string> {
    return (await this.read(start, Math.max(0, Math.min(bytes - 1, this.size - start)))).toString('utf8');
  }

  async close(): Promise<void> {
    await this.handle.close().catch(() => undefined);
  }

  private line(parts: Buffer[], bytes: number, start: number, maxLineBytes: number): SnapshotLine {
    if (bytes > maxLineBytes) throw new LineTooLargeError(bytes);
    const text = (parts.length === 1 ? parts[0]! : Buffer.concat(parts, bytes)).toString('utf8').trim();
    return { record: parseRecord(text), bytes: bytes + 1, start };
  }

  private async readByte(offset: number): Promise<number> {
    return (await this.read(offset, 1))[0]!;
  }

  private async read(offset: number, length: number): Promise<Buffer> {
    const buffer = Buffer.alloc(length);
    let bytesRead: number;
    try {
      ({ bytesRead } = await this.handle.read(buffer, 0, length, offset));
    } catch {
      throw new SnapshotChangedError();
    }
    // Fewer bytes than the snapshot promised: the file was truncated under us.
    if (bytesRead !== length) throw new SnapshotChangedError();
    return buffer;
  }
}

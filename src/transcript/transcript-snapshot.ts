import { constants } from 'node:fs';
import { lstat, open, stat, type FileHandle } from 'node:fs/promises';
import { SnapshotLine } from './snapshot-line.js';
import { LineTooLargeError, NotRegularFileError, SnapshotChangedError } from './transcript-errors.js';

/** The first read of a backward walk: a hit near the end reads this much. */
const FIRST_CHUNK_BYTES = 256 * 1024;
/** Reads double up to this, so a walk through a whole window takes a few reads, not dozens. */
const MAX_CHUNK_BYTES = 2 * 1024 * 1024;
const NEWLINE = 0x0a;

/** Same inode, size and mtime: the same bytes, for an append-only file. */
export interface FileIdentity {
  ino: number;
  size: number;
  mtimeMs: number;
}

export function sameFile(a: FileIdentity | undefined, b: FileIdentity | undefined): boolean {
  return a !== undefined && b !== undefined && a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs;
}

/** How {@link TranscriptSnapshot.batchesBefore} reads. */
export interface BatchOptions {
  /** Hand over an oversized line (without its data) instead of throwing {@link LineTooLargeError}. */
  skipOversized?: boolean;
  /** The walker's estimate of the bytes it still has to go through (may be `Infinity`); enables read-ahead. */
  bytesWanted?: () => number;
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
  /** Bytes read from the file so far (a metric of the scan). */
  bytesRead = 0;

  private constructor(
    private readonly path: string,
    private readonly handle: FileHandle,
    readonly size: number,
    private readonly inode: number,
    private readonly mtimeMs: number,
  ) {}

  /** What identifies this snapshot's bytes: the same file (inode), the same size, the same mtime. */
  get identity(): FileIdentity {
    return { ino: this.inode, size: this.size, mtimeMs: this.mtimeMs };
  }

  /** The identity of the file at `path` now, without opening it; `undefined` when there is none. */
  static async identityOf(path: string): Promise<FileIdentity | undefined> {
    try {
      const info = await lstat(path);
      return info.isFile() ? { ino: info.ino, size: info.size, mtimeMs: info.mtimeMs } : undefined;
    } catch {
      return undefined;
    }
  }

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
    return new TranscriptSnapshot(path, handle, info.size, info.ino, info.mtimeMs);
  }

  /**
   * Lines ending at or before `end`, newest first, a chunk's worth at a time, the next read running while a batch is
   * walked (docs/performance.md). A line over `maxLineBytes` comes without data; unless `skipOversized`, one that runs
   * past a chunk throws {@link LineTooLargeError}. `bytesWanted`: the walker's estimate of the bytes still to go.
   */
  async *batchesBefore(end: number, maxLineBytes: number, options: BatchOptions = {}): AsyncGenerator<SnapshotLine[]> {
    const { skipOversized = false, bytesWanted } = options;
    let carry: Buffer[] = [];
    let carryBytes = 0;
    let position = end;
    let chunkBytes = FIRST_CHUNK_BYTES;
    let reads = 0;
    let ahead: { start: number; data: Promise<Buffer> } | undefined;
    while (position > 0) {
      const start = ahead?.start ?? Math.max(0, position - chunkBytes);
      const chunk = await (ahead?.data ?? this.read(start, position - start));
      chunkBytes = Math.min(chunkBytes * 2, MAX_CHUNK_BYTES);
      reads += 1;
      // Past the first read the walk is going deep: the next read runs while this chunk is walked.
      // bench:scan, same run, with the growing reads: a full-window miss in 0.85–0.99× the time of fixed 256 KiB reads one after another (four runs: 0.85, 0.86 loaded; 0.96, 0.99 calmer).
      const aheadBytes = reads >= 2 && start > 0 && bytesWanted ? Math.min(chunkBytes, bytesWanted() - chunk.length) : 0;
      ahead = aheadBytes > 0 ? this.readAhead(Math.max(0, start - Math.ceil(aheadBytes * 1.125)), start) : undefined;
      const batch: SnapshotLine[] = [];
      let cursor = chunk.length;
      // A trailing newline closes the last line; it is not an empty line of its own.
      if (reads === 1 && chunk[cursor - 1] === NEWLINE) cursor -= 1;
      while (cursor > 0) {
        const i = chunk.lastIndexOf(NEWLINE, cursor - 1);
        if (i < 0) break;
        const bytes = carryBytes + cursor - (i + 1);
        if (bytes > maxLineBytes) batch.push(new SnapshotLine(undefined, 0, 0, bytes + 1, start + i + 1));
        else if (carry.length === 0) batch.push(new SnapshotLine(chunk, i + 1, cursor, bytes + 1, start + i + 1));
        else
          batch.push(new SnapshotLine(Buffer.concat([chunk.subarray(i + 1, cursor), ...carry], bytes), 0, bytes, bytes + 1, start + i + 1));
        carry = [];
        carryBytes = 0;
        cursor = i;
      }
      const rest = chunk.subarray(0, cursor);
      carryBytes += rest.length;
      // An oversized line is only counted, never held.
      carry = carryBytes > maxLineBytes ? [] : [rest, ...carry];
      position = start;
      if (batch.length > 0) yield batch;
      if (carryBytes > maxLineBytes && !skipOversized) throw new LineTooLargeError(carryBytes);
    }
    if (carryBytes > 0) {
      const data = carryBytes > maxLineBytes ? undefined : Buffer.concat(carry, carryBytes);
      yield [new SnapshotLine(data, 0, carryBytes, carryBytes + 1, 0)];
    }
  }

  /** {@link batchesBefore} one line at a time. */
  async *linesBefore(end: number, maxLineBytes: number, skipOversized = false): AsyncGenerator<SnapshotLine> {
    for await (const batch of this.batchesBefore(end, maxLineBytes, { skipOversized })) yield* batch;
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

  /** Starts a read now; a walk that stops before it is used leaves no unhandled rejection (close waits for it). */
  private readAhead(start: number, end: number): { start: number; data: Promise<Buffer> } {
    const data = this.read(start, end - start);
    data.catch(() => undefined);
    return { start, data };
  }

  private async read(offset: number, length: number): Promise<Buffer> {
    const buffer = Buffer.allocUnsafe(length);
    let bytesRead: number;
    try {
      ({ bytesRead } = await this.handle.read(buffer, 0, length, offset));
    } catch {
      throw new SnapshotChangedError();
    }
    // Fewer bytes than the snapshot promised: the file was truncated under us.
    if (bytesRead !== length) throw new SnapshotChangedError();
    this.bytesRead += bytesRead;
    return buffer;
  }
}

import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { SAFE_OPEN } from './transcript-snapshot.js';

/**
 * The whole lines in the last `maxBytes` of a file: the line the window cuts
 * into is dropped. A missing file (or one that is not a regular file) reads as
 * none. Reads the ledger and the other append-only files beside a transcript.
 */
export async function readTailLines(path: string, maxBytes: number): Promise<{ lines: string[]; bytesRead: number }> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | SAFE_OPEN);
  } catch {
    return { lines: [], bytesRead: 0 };
  }
  try {
    const info = await handle.stat();
    if (!info.isFile() || info.size === 0) return { lines: [], bytesRead: 0 };
    const start = Math.max(0, info.size - maxBytes);
    const buffer = Buffer.alloc(info.size - start);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, start);
    let text = buffer.subarray(0, bytesRead).toString('utf8');
    // The window began inside a line (unless it begins right after a newline): that line is not whole.
    if (start > 0) text = text.slice(text.indexOf('\n') + 1 || text.length);
    return { lines: text.split('\n').filter((line) => line !== ''), bytesRead };
  } finally {
    await handle.close().catch(() => undefined);
  }
}

import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isSessionId } from '../transcript/transcript-paths.js';

/**
 * The highest lease fence each session has had, kept on the shared data dir
 * (`<dataDir>/cluster/fences/<sessionId>`). Redis's fence counter starts over
 * when Redis loses its data; this record does not, so a claim made after that
 * still outranks the owner before it, and that owner, checking here before it
 * writes, finds itself fenced. Without a directory it records nothing.
 *
 * @publicApi
 */
export class SessionFences {
  private readonly dir?: string;

  constructor(dataDir?: string) {
    this.dir = dataDir === undefined ? undefined : join(dataDir, 'cluster', 'fences');
  }

  /** The highest fence recorded for the session; 0 when none is. */
  async highest(sessionId: string): Promise<number> {
    if (!this.dir) return 0;
    try {
      const fence = Number((await readFile(this.pathOf(sessionId), 'utf8')).trim());
      return Number.isSafeInteger(fence) ? fence : 0;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw error;
    }
  }

  /** Records `fence` unless a higher one is already recorded; written whole (rename), never torn. */
  async record(sessionId: string, fence: number): Promise<void> {
    if (!this.dir || (await this.highest(sessionId)) >= fence) return;
    const path = this.pathOf(sessionId);
    const temporary = `${path}.${randomBytes(4).toString('hex')}.tmp`;
    await mkdir(this.dir, { recursive: true });
    await writeFile(temporary, `${fence}\n`);
    await rename(temporary, path);
  }

  private pathOf(sessionId: string): string {
    if (!isSessionId(sessionId)) throw new Error('invalid session id');
    return join(this.dir!, sessionId);
  }
}

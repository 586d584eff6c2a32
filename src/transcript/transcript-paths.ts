import { createHash } from 'node:crypto';
import { basename, join } from 'node:path';
import { SESSION_ID_PATTERN } from '../turns/rules/limits.js';

/** Directory name of a workspace under the data dir: readable, and unique by path. */
export function workspaceKey(cwd: string): string {
  const name =
    basename(cwd)
      .replace(/[^A-Za-z0-9._-]/g, '_')
      .slice(0, 40) || 'root';
  return `${name}-${createHash('sha256').update(cwd).digest('hex').slice(0, 12)}`;
}

/** True for an id that can name a transcript (a UUID: no path escape). */
export function isSessionId(sessionId: string): boolean {
  return SESSION_ID_PATTERN.test(sessionId);
}

/** `<dataDir>/<workspaceKey>/chats`: where a workspace's transcripts (and what lives beside them) are. */
export function chatsDir(dataDir: string, workspace: string): string {
  return join(dataDir, workspaceKey(workspace), 'chats');
}

/** `<dataDir>/<workspaceKey>/chats/<sessionId>.jsonl`; throws for an id that is not a UUID. */
export function transcriptPath(dataDir: string, workspace: string, sessionId: string): string {
  if (!isSessionId(sessionId)) throw new Error('invalid session id');
  return join(chatsDir(dataDir, workspace), `${sessionId}.jsonl`);
}

/** A file beside a transcript (`<sessionId><suffix>`), for what lives with the session. */
export function companionPath(transcript: string, suffix: string): string {
  return transcript.replace(/\.jsonl$/, suffix);
}

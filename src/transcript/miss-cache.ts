import { sameFile, type FileIdentity } from './transcript-snapshot.js';

/** Sessions and queries remembered at most (a bound, not a promptId index). */
const MAX_SESSIONS = 1_024;
const MAX_QUERIES_PER_SESSION = 256;

/**
 * The misses of one snapshot of each session's transcript: a query that found
 * nothing in a file with the same inode, size and mtime finds nothing again,
 * so it is answered without reading. Any change to the file (an append, a
 * rewind record, a replacement) forgets the session's misses.
 */
export class MissCache {
  private readonly sessions = new Map<string, { identity: FileIdentity; queries: Set<string> }>();

  has(sessionId: string, query: string, identity: FileIdentity | undefined): boolean {
    const entry = this.sessions.get(sessionId);
    return entry !== undefined && sameFile(entry.identity, identity) && entry.queries.has(query);
  }

  add(sessionId: string, query: string, identity: FileIdentity): void {
    let entry = this.sessions.get(sessionId);
    if (!entry || !sameFile(entry.identity, identity)) {
      entry = { identity, queries: new Set() };
      this.sessions.delete(sessionId);
      this.sessions.set(sessionId, entry);
      if (this.sessions.size > MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value as string);
    }
    if (entry.queries.size >= MAX_QUERIES_PER_SESSION) entry.queries.clear();
    entry.queries.add(query);
  }
}

import { opendir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { isSessionId } from '../transcript/transcript-paths.js';
import { danglingPrompts, latestByPrompt, readLedgerTail } from './ledger-tail.js';

const LEDGER = /^(.+)\.ledger\.jsonl$/;

/**
 * The sessions of a chats directory whose ledger's tail still has a prompt in
 * flight (its latest record `in_flight`), streamed: one tail read per ledger.
 * `settled` remembers the ledgers found without one (by size and mtime), so a
 * later pass reads only those that changed. A directory or ledger that
 * cannot be read yields nothing (the next pass tries again).
 */
export async function* danglingLedgers(dir: string, settled: Map<string, string>): AsyncGenerator<string> {
  let entries;
  try {
    entries = await opendir(dir);
  } catch {
    return;
  }
  for await (const entry of entries) {
    const sessionId = LEDGER.exec(entry.name)?.[1];
    if (!entry.isFile() || !sessionId || !isSessionId(sessionId)) continue;
    const path = join(dir, entry.name);
    const seen = await stat(path).then(
      (stats) => `${stats.size}:${stats.mtimeMs}`,
      () => undefined,
    );
    if (seen === undefined || settled.get(path) === seen) continue;
    const tail = await readLedgerTail(path).catch(() => undefined);
    if (!tail) continue;
    if (danglingPrompts(latestByPrompt(tail.records)).length === 0) settled.set(path, seen);
    else {
      settled.delete(path);
      yield sessionId;
    }
  }
}

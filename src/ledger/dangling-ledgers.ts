import { opendir } from 'node:fs/promises';
import { join } from 'node:path';
import { isSessionId } from '../transcript/transcript-paths.js';
import { danglingPrompts, latestByPrompt, readLedgerTail } from './ledger-tail.js';

const LEDGER = /^(.+)\.ledger\.jsonl$/;

/**
 * The sessions of a chats directory whose ledger's tail still has a prompt in
 * flight (its latest record `in_flight`), streamed: one tail read per ledger.
 * A directory or ledger that cannot be read yields nothing (the next sweep tries again).
 */
export async function* danglingLedgers(dir: string): AsyncGenerator<string> {
  let entries;
  try {
    entries = await opendir(dir);
  } catch {
    return;
  }
  for await (const entry of entries) {
    const sessionId = LEDGER.exec(entry.name)?.[1];
    if (!entry.isFile() || !sessionId || !isSessionId(sessionId)) continue;
    const tail = await readLedgerTail(join(dir, entry.name)).catch(() => undefined);
    if (tail && danglingPrompts(latestByPrompt(tail.records)).length > 0) yield sessionId;
  }
}

// @ts-check
// Reads what the daemons left in their data dirs: transcripts and ledgers (`<dataDir>/<workspace>/chats/`) and the
// webhook outboxes (`<dataDir>/webhooks/outbox*/`). Formats: src/transcript, src/ledger, src/webhooks.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { believedLines } from './fence-order.js';

/** @typedef {import('./types.js').DataRecord} DataRecord */
/** @typedef {import('./types.js').DataDirView} DataDirView */

const UUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';
const TRANSCRIPT = new RegExp(`^(${UUID})\\.jsonl$`);
const LEDGER = new RegExp(`^(${UUID})\\.ledger\\.jsonl$`);
const OUTBOX_FILE = /^\d{15}_msg_[0-9a-f-]{36}\.json$/;

/** Entries of a directory, none when it is missing. */
function list(/** @type {string} */ dir) {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

/**
 * The JSON lines of a file: parsed records with their line numbers, and the numbers of lines that did not parse
 * (a torn last line after a `kill -9`).
 * @param {'transcript' | 'ledger'} type
 * @param {string} file
 */
export function readJsonLines(type, file) {
  /** @type {DataRecord[]} */
  const records = [];
  /** @type {number[]} */
  const unparsed = [];
  const lines = readFileSync(file, 'utf8').split('\n');
  lines.forEach((text, index) => {
    if (text.trim() === '') return;
    try {
      const record = JSON.parse(text);
      if (typeof record === 'object' && record !== null) records.push({ type, file, line: index + 1, record });
      else unparsed.push(index + 1);
    } catch {
      unparsed.push(index + 1);
    }
  });
  return { records, unparsed };
}

/** A ledger line that is a record: markers (`{"v":1,"fence":N}`) are not. */
const isLedgerRecord = (/** @type {DataRecord} */ { record }) =>
  record.v === 1 && typeof record.promptId === 'string' && record.promptId !== '';

/**
 * Everything of interest in the given data dirs (each read once, also when several nodes share one). Transcripts and
 * ledgers as the daemon's readers believe them ({@link believedLines}): a stale owner's line that a newer claim's
 * fence outranks is left out, so no property takes it for a second writer or counts it as recorded.
 * @param {string[]} dataDirs
 * @returns {DataDirView}
 */
export function readDataDirs(dataDirs) {
  const outranked = { transcript: 0, ledger: 0 };
  /** @type {DataDirView} */
  const view = { transcripts: [], ledgers: new Map(), outbox: [], outranked };
  for (const dataDir of new Set(dataDirs.map((dir) => resolve(dir)))) {
    if (!existsSync(dataDir) || !statSync(dataDir).isDirectory()) continue;
    for (const workspace of list(dataDir)) {
      if (!workspace.isDirectory()) continue;
      const chats = join(dataDir, workspace.name, 'chats');
      for (const entry of list(chats)) {
        if (!entry.isFile()) continue;
        const file = join(chats, entry.name);
        const transcript = TRANSCRIPT.exec(entry.name);
        const ledger = LEDGER.exec(entry.name);
        if (transcript) {
          const { records, unparsed } = readJsonLines('transcript', file);
          // A record without a uuid is not part of the chain (the scanner skips it too); fence markers are.
          const chain = records.filter(({ record }) => typeof record.uuid === 'string');
          const believed = believedLines(chain);
          outranked.transcript += chain.length - believed.length;
          view.transcripts.push({ file, sessionId: transcript[1] ?? '', records: believed, unparsed });
        } else if (ledger) {
          const sessionId = ledger[1] ?? '';
          const { records } = readJsonLines('ledger', file);
          const believed = believedLines(records);
          outranked.ledger += records.length - believed.length;
          view.ledgers.set(sessionId, [...(view.ledgers.get(sessionId) ?? []), ...believed.filter(isLedgerRecord)]);
        }
      }
    }
    const webhooks = join(dataDir, 'webhooks');
    for (const outbox of list(webhooks)) {
      if (!outbox.isDirectory() || !outbox.name.startsWith('outbox')) continue;
      for (const entry of list(join(webhooks, outbox.name))) {
        if (!entry.isFile() || !OUTBOX_FILE.test(entry.name)) continue;
        const file = join(webhooks, outbox.name, entry.name);
        try {
          view.outbox.push({ type: 'outbox', file, line: 1, record: JSON.parse(readFileSync(file, 'utf8')) });
        } catch {
          // written atomically, so a file that does not parse is one being replaced: nothing pending to report
        }
      }
    }
  }
  return view;
}

// @ts-check
// Reads one run directory (`.chaos/<seed>-<index>/`, CHAOS-HISTORY.md) into the plain data the properties check.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readDataDirs } from './data-dir.js';

/** @typedef {import('./types.js').Run} Run */

/**
 * The lines of history.jsonl; a line that does not parse (the harness killed mid-write) is skipped and counted.
 * @param {string} text
 */
export function parseHistory(text) {
  /** @type {import('./types.js').HistoryRecord[]} */
  const history = [];
  let skipped = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const record = JSON.parse(line);
      if (typeof record === 'object' && record !== null && typeof record.type === 'string') history.push(record);
      else skipped += 1;
    } catch {
      skipped += 1;
    }
  }
  return { history, skipped };
}

/**
 * @param {string} dir a run directory
 * @returns {Run & { skippedLines: number }}
 */
export function readRun(dir) {
  const meta = JSON.parse(readFileSync(join(dir, 'meta.json'), 'utf8'));
  const { history, skipped } = parseHistory(readFileSync(join(dir, 'history.jsonl'), 'utf8'));
  const dataDirs = (meta.nodes ?? []).map((/** @type {{ dataDir?: string }} */ node) => node.dataDir).filter(Boolean);
  return { dir, meta, history, data: readDataDirs(dataDirs), skippedLines: skipped };
}

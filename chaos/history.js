import { closeSync, openSync, writeSync } from 'node:fs';

/**
 * history.jsonl (CHAOS-HISTORY.md): one record a line, written synchronously so the
 * file's order is the order the harness observed things in, and nothing is lost on a crash.
 */
export class History {
  constructor(file) {
    this.fd = openSync(file, 'a');
    this.counts = {};
    /** The node that last answered 2xx for each session, naming itself (a forwarded answer names the owner). */
    this.owners = new Map();
  }

  /** The sessions `node` owned as the clients last saw it, sorted. */
  ownedBy(node) {
    return [...this.owners]
      .filter(([, owner]) => owner === node)
      .map(([sessionId]) => sessionId)
      .sort();
  }

  write(record) {
    if (this.fd === undefined) return;
    const key = record.type === 'op' ? `op:${record.op}` : record.type === 'fault' ? `fault:${record.fault}` : record.type;
    this.counts[key] = (this.counts[key] ?? 0) + 1;
    const node = record.type === 'op' && record.status >= 200 && record.status < 300 ? record.headers?.['x-turns-node'] : undefined;
    if (node && record.sessionId) this.owners.set(record.sessionId, node);
    writeSync(this.fd, `${JSON.stringify(record)}\n`);
  }

  close() {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

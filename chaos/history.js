import { closeSync, openSync, writeSync } from 'node:fs';

/**
 * history.jsonl (CHAOS-HISTORY.md): one record a line, written synchronously so the
 * file's order is the order the harness observed things in, and nothing is lost on a crash.
 */
export class History {
  constructor(file) {
    this.fd = openSync(file, 'a');
    this.counts = {};
  }

  write(record) {
    if (this.fd === undefined) return;
    const key = record.type === 'op' ? `op:${record.op}` : record.type === 'fault' ? `fault:${record.fault}` : record.type;
    this.counts[key] = (this.counts[key] ?? 0) + 1;
    writeSync(this.fd, `${JSON.stringify(record)}\n`);
  }

  close() {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

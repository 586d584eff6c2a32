// The Node test environment, plus a check that a test file closes every FileHandle it opens. A handle left to
// the garbage collector is a warning on Node 20–24 (DEP0137) and an uncaught error on Node 26, reported against
// whichever file happens to be running when the collector runs; this check fails the file that opened it.
const fsPromises = require('node:fs/promises');
const { TestEnvironment } = require('jest-environment-node');

const PATCHED = Symbol.for('nest-turn-status.file-handle-tracking');

/** The handles opened while the current test file runs (a worker runs one file at a time). */
let opened;

// Test code gets this very module from Jest (core modules are not sandboxed), so wrapping `open` here sees
// every FileHandle the file's code opens in this worker; the wrapper is installed once per worker.
if (!fsPromises[PATCHED]) {
  const open = fsPromises.open;
  fsPromises.open = async function trackedOpen(path, ...rest) {
    const handle = await open.call(this, path, ...rest);
    opened?.set(handle, { path: String(path), stack: new Error().stack.split('\n').slice(2, 8).join('\n') });
    return handle;
  };
  fsPromises[PATCHED] = true;
}

class FileHandleEnvironment extends TestEnvironment {
  async setup() {
    await super.setup();
    opened = new Map();
  }

  async teardown() {
    const mine = opened;
    opened = undefined;
    await super.teardown();
    // A closed (or closing) FileHandle reports fd -1.
    const leaked = [...(mine ?? new Map())].filter(([handle]) => handle.fd !== -1);
    if (leaked.length === 0) return;
    for (const [handle] of leaked) await handle.close().catch(() => undefined);
    const where = leaked.map(([, info]) => `  ${info.path}\n${info.stack}`).join('\n');
    throw new Error(`${leaked.length} FileHandle(s) left open at the end of the file (never closed):\n${where}`);
  }
}

module.exports = FileHandleEnvironment;

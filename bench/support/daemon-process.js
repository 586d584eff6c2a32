// The daemon (or any server that prints its URL) as a child process, for the
// benchmark scripts: resolves once it prints its URL; `stop()` ends it.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/** Spawns `node ...args` and waits for the first `http://127.0.0.1:<port>` it prints. */
export async function startProcess(args, env = {}) {
  const child = spawn(process.execPath, args, { env: { ...process.env, TURNS_LOG: '', ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      const found = /(http:\/\/127\.0\.0\.1:\d+)/.exec(line)?.[1];
      if (found) resolve(found);
    });
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}`)));
  });
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return { child, url, stop };
}

/** The built daemon on an ephemeral port with the given TURNS_* settings. */
export function startDaemonProcess(env) {
  return startProcess(['dist/daemon/bin.js'], { TURNS_PORT: '0', ...env });
}

/** The built daemon on `httpAdapter` with a data directory of its own, which `stop()` removes. */
export async function startDaemonWithData(httpAdapter, env = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'turns-bench-'));
  const daemon = await startDaemonProcess({ TURNS_DATA_DIR: dataDir, TURNS_WORKSPACES: dataDir, TURNS_HTTP_ADAPTER: httpAdapter, ...env });
  const stop = async () => {
    await daemon.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  return { ...daemon, dataDir, stop };
}

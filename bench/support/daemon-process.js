// The daemon (or any server that prints its URL) as a child process, for the
// benchmark scripts: resolves once it prints its URL; `stop()` ends it.
import { execFileSync, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/** The CPUs this process may run on (`Cpus_allowed_list` of /proc/self/status: "0-3", "2,5-6"), or [] where it cannot tell. */
function allowedCpus() {
  try {
    const list = /Cpus_allowed_list:\s*(\S+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? '';
    return list.split(',').flatMap((range) => {
      const [from, to = from] = range.split('-').map(Number);
      return Array.from({ length: to - from + 1 }, (_, i) => from + i);
    });
  } catch {
    return [];
  }
}

/**
 * Where the servers and the load generator run when the bench pins (see
 * {@link pinLoadGenerator}), or `undefined`: pinning needs `taskset`
 * (util-linux) and two CPUs or more; `BENCH_PIN=0` turns it off.
 */
const PLACEMENT = (() => {
  const cpus = allowedCpus();
  if (process.env.BENCH_PIN === '0' || cpus.length < 2) return undefined;
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' });
  } catch {
    return undefined;
  }
  return { server: String(cpus.at(-1)), others: cpus.slice(0, -1).join(','), all: cpus.join(',') };
})();

let pinning = false;

/**
 * Pins this process (the load generator, every thread) to the CPUs the servers
 * do not use, and returns a line saying how the run is placed. Unpinned, the
 * scheduler put a daemon and autocannon on one core for parts of a case: two
 * daemons doing the same work read 0.71–0.80 of each other on this 2-core VM.
 */
export function pinLoadGenerator() {
  const off = 'not pinned (needs taskset and 2 CPUs; BENCH_PIN=0 turns it off)';
  if (PLACEMENT === undefined) return off;
  try {
    execFileSync('taskset', ['-a', '-p', '-c', PLACEMENT.others, String(process.pid)], { stdio: 'ignore' });
  } catch {
    return off;
  }
  pinning = true;
  return `servers pinned to CPU ${PLACEMENT.server}, the load generator to CPU ${PLACEMENT.others} (BENCH_PIN=0 to not pin)`;
}

/**
 * `node ...args` as a child: once the bench pinned itself, on the servers' CPU, or with
 * `pin: false` on all of them (a child would inherit the load generator's). taskset execs
 * node: the pid is node's.
 */
function spawnNode(args, options, pin = true) {
  if (!pinning) return spawn(process.execPath, args, options);
  return spawn('taskset', ['-c', pin ? PLACEMENT.server : PLACEMENT.all, process.execPath, ...args], options);
}

/** Spawns `node ...args` and waits for the first `http://127.0.0.1:<port>` it prints (`pin: false`: on any core). */
export async function startProcess(args, env = {}, { pin = true } = {}) {
  const child = spawnNode(args, { env: { ...process.env, TURNS_LOG: '', ...env }, stdio: ['ignore', 'pipe', 'inherit'] }, pin);
  const url = await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      const found = /(http:\/\/127\.0\.0\.1:\d+)/.exec(line)?.[1];
      if (found) resolve(found);
    });
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}`)));
  });
  return { child, url, stop: () => stopChild(child) };
}

/** SIGTERM, resolved once the child exited. */
function stopChild(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** A free loopback port: listen on 0, read the port, close. */
function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/**
 * Spawns `node ...args` for a daemon that may log nothing (`TURNS_LOG=silent`):
 * on a port chosen here, ready once `GET /health` answers. Its stdout (its
 * log, if any) goes to `logFile`, as to an operator's log file: a pipe read
 * here would take its reading from the load generator's CPU (it made a Fastify
 * daemon that logs look 0.86× one that does not; into a file, 0.98–1.02×).
 */
export async function startOnPort(args, env = {}, logFile = '/dev/null') {
  const port = await freePort();
  const out = openSync(logFile, 'w');
  const child = spawnNode(args, {
    env: { ...process.env, ...env, TURNS_PORT: String(port) },
    stdio: ['ignore', out, 'inherit'],
  });
  closeSync(out);
  const url = `http://127.0.0.1:${port}`;
  for (let attempt = 0; ; attempt += 1) {
    const up = await fetch(`${url}/health`).then(
      (res) => res.ok,
      () => false,
    );
    if (up) break;
    if (child.exitCode !== null || attempt > 400) throw new Error(`${args.join(' ')} did not come up on port ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { child, url, stop: () => stopChild(child) };
}

/** The built daemon on an ephemeral port with the given TURNS_* settings. */
export function startDaemonProcess(env, options) {
  return startProcess(['dist/daemon/bin.js'], { TURNS_PORT: '0', ...env }, options);
}

/** The built daemon on `httpAdapter` with a data directory of its own, which `stop()` removes. */
export async function startDaemonWithData(httpAdapter, env = {}, options = undefined) {
  const dataDir = mkdtempSync(join(tmpdir(), 'turns-bench-'));
  const daemon = await startDaemonProcess(
    { TURNS_DATA_DIR: dataDir, TURNS_WORKSPACES: dataDir, TURNS_HTTP_ADAPTER: httpAdapter, ...env },
    options,
  );
  const stop = async () => {
    await daemon.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  return { ...daemon, dataDir, stop };
}

import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';

/** A free loopback port: listen on 0, read it, close. */
// Below Linux's ephemeral range (32768–60999): a port the kernel never hands to an outgoing connection, so a node
// killed and restarted on its port finds it free (a run with PARALLEL=2 once lost a restart to a client socket).
const LOW_PORTS = { from: 20_000, to: 32_000 };

/** A free loopback port outside the ephemeral range; bounded tries. */
export async function freePort() {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const port = LOW_PORTS.from + Math.floor(Math.random() * (LOW_PORTS.to - LOW_PORTS.from));
    if (await listens(port)) return port;
  }
  throw new Error('no free loopback port in 20000–32000 after 50 tries');
}

function listens(port) {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** Polls `url` until it answers 2xx, at most `ms`. */
export async function waitHttp(url, what, ms = 20_000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const ok = await fetch(url, { signal: AbortSignal.timeout(1_000) }).then(
      (res) => res.ok,
      () => false,
    );
    if (ok) return;
    await sleep(100);
  }
  throw new Error(`${what} did not answer ${url} within ${ms} ms`);
}

/**
 * One child process the harness owns: started, signalled and stopped by its pid
 * only. `expectExit()` before a kill the schedule meant; any other exit is `onCrash`.
 */
export class Child {
  constructor(name, command, args, { env, logFile, onCrash }) {
    Object.assign(this, { name, command, args, env, logFile, onCrash });
    this.child = undefined;
    this.tail = '';
  }

  start() {
    const log = createWriteStream(this.logFile, { flags: 'a' });
    const child = spawn(this.command, this.args, { env: { ...process.env, ...this.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    this.expected = false;
    this.stopped = false;
    const keep = (chunk) => {
      log.write(chunk);
      this.tail = (this.tail + chunk.toString()).slice(-2_000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    this.exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        log.end();
        if (!this.expected) this.onCrash?.({ code, signal, stderrTail: this.tail });
        resolve();
      }),
    );
    return child;
  }

  get alive() {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  signal(name) {
    if (this.alive) this.child.kill(name);
  }

  /** SIGKILL (after SIGCONT, so a stopped process dies too), and wait for the exit. */
  async kill() {
    if (!this.alive) return;
    this.expected = true;
    this.child.kill('SIGCONT');
    this.child.kill('SIGKILL');
    await this.exited;
  }

  /** A polite stop, then SIGKILL after `graceMs`. */
  async stop(signal = 'SIGTERM', graceMs = 3_000) {
    if (!this.alive) return;
    this.expected = true;
    this.child.kill('SIGCONT');
    this.child.kill(signal);
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }
}

/** A redis-server on `port`, no persistence; resolves once it accepts connections. */
export async function startRedis(child) {
  const proc = child.start();
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('redis-server did not start within 10 s')), 10_000);
    createInterface({ input: proc.stdout }).on('line', (line) => {
      if (/Ready to accept connections/.test(line)) {
        clearTimeout(timer);
        resolve();
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code}`));
    });
  });
}

export function redisChild(port, logFile, onCrash) {
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  return new Child('redis', 'redis-server', args, { logFile, onCrash });
}

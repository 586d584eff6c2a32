import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';

/** True when a `redis-server` binary is on the PATH (`.ci/run` installs the Debian package). */
export const HAS_REDIS = spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;

/** A free loopback port: listen on 0, read the port, close. (`--port 0` would turn Redis's TCP off.) */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** A private `redis-server` on loopback, without persistence, stopped by its pid. */
export interface RedisProcess {
  port: number;
  url: string;
  pid: number;
  /** SIGKILL, and resolves once it exited. */
  kill(): Promise<void>;
}

export async function startRedis(port?: number): Promise<RedisProcess> {
  const chosen = port ?? (await freePort());
  const child = spawn('redis-server', ['--port', String(chosen), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('redis-server did not start within 10 s')), 10_000);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (/Ready to accept connections/.test(line)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code}`));
    });
  });
  return {
    port: chosen,
    url: `redis://127.0.0.1:${chosen}`,
    pid: child.pid!,
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

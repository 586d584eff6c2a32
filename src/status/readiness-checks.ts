import { randomBytes } from 'node:crypto';
import { mkdir, open, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { ClusterState } from '../sessions/cluster-view.js';

/** One condition the daemon needs to serve; its name is all a failing probe reveals. */
export interface ReadinessCheck {
  readonly name: string;
  passes(): Promise<boolean>;
}

/**
 * The data dir takes a write: it is made if missing (transcripts make it on
 * their first write), then a probe file is created exclusively and removed. A real write, not `access(W_OK)`, which says yes to root on a
 * read-only directory and knows nothing of a read-only mount.
 */
export function dataDirWritable(dataDir: string): ReadinessCheck {
  return {
    name: 'data_dir_writable',
    async passes() {
      const probe = join(dataDir, `.ready-${process.pid}-${randomBytes(4).toString('hex')}`);
      try {
        await mkdir(dataDir, { recursive: true });
        const handle = await open(probe, 'wx');
        await handle.close();
        await unlink(probe);
        return true;
      } catch {
        return false;
      }
    },
  };
}

/** In cluster mode the directory answers (a node without Redis can neither claim nor forward). */
export function redisUp(state: () => ClusterState | undefined): ReadinessCheck {
  return { name: 'redis', passes: async () => state()?.redis !== 'down' };
}

/** The name of the first check that fails, checked in order; `undefined` when all pass. */
export async function firstFailing(checks: readonly ReadinessCheck[]): Promise<string | undefined> {
  for (const check of checks) {
    if (!(await check.passes().catch(() => false))) return check.name;
  }
  return undefined;
}

/** A log line for a change of readiness: `warn` on turning not ready (or failing another check), `info` on being ready again. */
export function readinessLine(
  previous: string | undefined,
  failing: string | undefined,
): { level: 'warn' | 'log'; message: string } | undefined {
  if (failing === previous) return undefined;
  if (failing === undefined) return { level: 'log', message: `ready again (${previous} passes); GET /health/ready answers 200` };
  return { level: 'warn', message: `not ready: the ${failing} check fails; GET /health/ready answers 503 until it passes` };
}

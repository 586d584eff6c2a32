import { unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Reached a point: the process stops itself (SIGSTOP stops every thread) until the harness sends SIGCONT. */
const stopHere = (): void => void process.kill(process.pid, 'SIGSTOP');

/**
 * Test-only pause points (the chaos harness, docs/reliability.md): in `dir`, a
 * file named after a point arms it once; the next time the point is reached, the
 * file is taken, `<point>.reached` says for which session, and the process
 * stops there. Without a `dir` there are none: the call site's `?.` is all it costs.
 */
export function pausePointsIn(dir: string | undefined, stop = stopHere): ((point: string, sessionId: string) => void) | undefined {
  if (!dir) return undefined;
  return (point, sessionId) => {
    const armed = join(dir, point);
    try {
      // Taking the file is what claims the pause: a point armed once stops one write.
      unlinkSync(armed);
    } catch {
      return;
    }
    writeFileSync(`${armed}.reached`, `${sessionId}\n`);
    stop();
  };
}

/** The daemon's pause points: `TURNS_TEST_PAUSE_DIR`, set only by the chaos harness. */
export const pausePoint = pausePointsIn(process.env.TURNS_TEST_PAUSE_DIR);

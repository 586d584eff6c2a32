import type { TestDaemon } from './test-daemon.js';
import { settle } from './controlled-engine.js';

/** Polls a turn until `done` holds; bounded by count, each round lets pending I/O finish. */
export async function pollTurn(
  daemon: TestDaemon,
  sessionId: string,
  promptId: string,
  done: (body: Record<string, unknown>) => boolean = (b) => !['queued', 'running'].includes(b.state as string),
): Promise<Record<string, any>> {
  for (let i = 0; i < 1_000; i += 1) {
    const res = await daemon.http.get(`/session/${sessionId}/turns/${promptId}`);
    if (res.status === 200 && done(res.body)) return res.body;
    await settle();
  }
  throw new Error(`turn ${promptId} never reached the expected state`);
}

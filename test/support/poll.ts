import type { LooseStatus } from './loose-status.js';
import type { TestDaemon } from './test-daemon.js';
import { settle } from './deferred.js';

/** Polls a turn until `done` holds; bounded by count, each round lets pending I/O finish. */
export async function pollTurn(
  daemon: TestDaemon,
  sessionId: string,
  promptId: string,
  done: (body: Record<string, unknown>) => boolean = (b) => !['queued', 'running'].includes(b.state as string),
): Promise<LooseStatus> {
  for (let i = 0; i < 1_000; i += 1) {
    const res = await daemon.http.get(`/session/${sessionId}/turns/${promptId}`);
    if (res.status === 200 && done(res.body)) return res.body;
    await settle();
  }
  throw new Error(`turn ${promptId} never reached the expected state`);
}

/**
 * Polls like a real client, every `intervalMs`, for engines that run in
 * another process at their own pace. Not for ordering rules: those use
 * controlled promises.
 */
export async function waitForTurn(
  daemon: TestDaemon,
  sessionId: string,
  promptId: string,
  timeoutMs = 45_000,
  intervalMs = 100,
  done: (state: string) => boolean = (state) => !['queued', 'running'].includes(state),
): Promise<LooseStatus> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const res = await daemon.http.get(`/session/${sessionId}/turns/${promptId}`);
    if (res.status === 200 && done(res.body.state)) return res.body;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  throw new Error(`turn ${promptId} did not reach the expected state within ${timeoutMs} ms`);
}

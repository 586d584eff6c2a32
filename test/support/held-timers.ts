import { statSync } from 'node:fs';

/** Runs `test` with the timers held (a hold runs only when the test advances them); Redis's and the files' clocks stay real. */
export async function withTimersHeld(test: () => Promise<void>): Promise<void> {
  jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask', 'performance', 'hrtime', 'Date'] });
  try {
    await test();
  } finally {
    jest.useRealTimers();
  }
}

/**
 * Waits (bounded: 10 s of real time) until the hold's touch, sent in the background, set the mark's time to `nowMs`.
 * A count of turns was no bound: the touch runs on libuv's thread pool, which a loaded machine (the full suite) keeps
 * busy for longer than 200 turns of the loop.
 */
export async function eventuallyTouched(path: string, nowMs: number): Promise<void> {
  for (const until = Date.now() + 10_000; Date.now() < until;) {
    if (Math.abs(statSync(path).mtimeMs - nowMs) < 1_000) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error('the mark was not touched');
}

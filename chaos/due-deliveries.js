// @ts-check
// Deliveries still in the webhook outboxes when a schedule's final reads are done: a delivery that two receiver
// faults in a row pushed far along its retry schedule may be due after the settle time (SEED=5523 schedule 1: seven
// failures across a receiver-down and a receiver-500, the next attempt 87 s later). The schedule waits for those due
// soon enough, so the checker judges deliveries made, not deliveries scheduled.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sleep } from './processes.js';

/**
 * The latest `nextAttemptAt` among the deliveries in `<dataDir>/webhooks/outbox*` that have attempts left;
 * `undefined` when there is none.
 * @param {string} dataDir
 * @param {number} maxAttempts
 * @returns {number | undefined}
 */
export function latestDueDelivery(dataDir, maxAttempts) {
  const webhooks = join(dataDir, 'webhooks');
  let latest;
  for (const outbox of entries(webhooks)) {
    if (!outbox.startsWith('outbox')) continue;
    for (const name of entries(join(webhooks, outbox))) {
      if (!name.endsWith('.json')) continue;
      let record;
      try {
        record = JSON.parse(readFileSync(join(webhooks, outbox, name), 'utf8'));
      } catch {
        continue; // gone meanwhile (delivered), or being written
      }
      if (typeof record.nextAttemptAt !== 'number' || (record.attempts ?? 0) >= maxAttempts) continue;
      latest = Math.max(latest ?? 0, record.nextAttemptAt);
    }
  }
  return latest;
}

/**
 * Waits, at most `maxWaitMs` in all, until no delivery with attempts left is due before then: each round sleeps past
 * the latest one due within the wait (+ `attemptMs` for its attempt), then looks again. Returns how long it waited.
 * @param {{ dataDir: string, maxAttempts: number, attemptMs: number, maxWaitMs: number }} options
 */
export async function awaitDueDeliveries({ dataDir, maxAttempts, attemptMs, maxWaitMs }) {
  const started = Date.now();
  const until = started + maxWaitMs;
  for (let round = 0; round < 10; round += 1) {
    const latest = latestDueDelivery(dataDir, maxAttempts);
    if (latest === undefined || latest + attemptMs > until) break;
    await sleep(Math.max(0, latest + attemptMs - Date.now()));
  }
  return Date.now() - started;
}

/** @param {string} dir */
function entries(dir) {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

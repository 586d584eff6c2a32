import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Canary } from './canary.js';
import { awaitDueDeliveries } from './due-deliveries.js';
import { Cluster } from './cluster.js';
import { sampleFences } from './fence-sampler.js';
import { playSchedule } from './faults.js';
import { finalReads } from './final-reads.js';
import { History } from './history.js';
import { freePort, sleep } from './processes.js';
import { Random } from './random.js';
import { Receiver } from './receiver.js';
import { makeSchedule } from './schedule.js';
import { Workload } from './workload.js';

/** Timings: generous, the machine is shared. The retry base makes the webhook schedule 50 ms, 300 ms, 1.2 s, 6 s, 18 s. */
const LEASE_MS = 3_000;
const DEADLINE_MS = 12_000;
const WEBHOOK = { timeoutMs: 2_000, retryBaseMs: 50, maxAttempts: 12 };
/** The first five retry waits at that base (a receiver fault of ≤ 5 s costs at most five failures). */
const BACKOFF_MS = [5_000, 30_000, 120_000, 600_000, 1_800_000].reduce((sum, step) => sum + (step / 5_000) * WEBHOOK.retryBaseMs, 0);
/** The longest wait for a delivery still due after the final reads: the retry schedule's 7th step at that base (108 s). */
const DUE_WAIT_MS = (10_800_000 / 5_000) * WEBHOOK.retryBaseMs;

/**
 * One schedule: cluster up, clients and faults at once, the settle time after the
 * last heal, the final reads, everything stopped. Leaves meta.json and history.jsonl
 * in `dir`; `track` registers what to stop on Ctrl-C.
 */
export async function runSchedule({ seed, index, durationMs, root, track, log, finalLoads }) {
  const dir = join(root, `${seed}-${index}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const random = new Random(`${seed}-${index}`);
  const history = new History(join(dir, 'history.jsonl'));
  const webhookSecret = `whsec_${random.fork('secret').bytes(32).toString('base64')}`;
  const receiver = new Receiver({ port: await freePort(), history, slowMs: 0 });
  const settings = {
    leaseMs: LEASE_MS,
    deadlineMs: DEADLINE_MS,
    echoDelayMs: [0, 1, 2].map(() => random.int(200, 800)),
    receiverUrl: receiver.url,
    webhookSecret,
    webhookTimeoutMs: WEBHOOK.timeoutMs,
    webhookRetryBaseMs: WEBHOOK.retryBaseMs,
    webhookMaxAttempts: WEBHOOK.maxAttempts,
  };
  const cluster = new Cluster({ dir, settings, history });
  const untrack = track(async () => {
    await cluster.stopAll();
    await receiver.down();
  });
  const settleMs = DEADLINE_MS + LEASE_MS + WEBHOOK.timeoutMs + Math.ceil(BACKOFF_MS);
  const meta = {
    seed: String(seed),
    index,
    startedAt: Date.now(),
    endedAt: 0,
    healedAt: 0,
    settleMs,
    leaseMs: LEASE_MS,
    deadlineMs: DEADLINE_MS,
    windowTurns: 64,
    webhookSecret,
    nodes: [],
    front: '',
    receiver: receiver.url,
    durationMs,
    // Deliveries go to the operator's endpoint (every session's) and to per-session subscriptions beside it.
    operatorWebhook: true,
    // 'all': the final phase loads every session; 'some': only some, so a session nobody loads again is seen as such.
    finalLoads: finalLoads ?? (index % 2 === 0 ? 'all' : 'some'),
    unloaded: [],
  };
  let sampling = false;
  const writeMeta = () => writeFileSync(join(dir, 'meta.json'), `${JSON.stringify(meta, null, 2)}\n`);
  try {
    await receiver.up();
    await cluster.start();
    meta.nodes = cluster.nodes.map((node) => ({ name: node.name, url: node.url, dataDir: cluster.dataDir }));
    meta.front = cluster.front;
    writeMeta();
    const episodes = makeSchedule(random.fork('schedule'), { durationMs, leaseMs: LEASE_MS, webhookTimeoutMs: WEBHOOK.timeoutMs });
    writeFileSync(join(dir, 'schedule.json'), `${JSON.stringify(episodes, null, 2)}\n`);
    const t0 = Date.now();
    const workload = new Workload({
      front: cluster.front,
      nodes: cluster.nodes.map((node) => node.url),
      receiver: receiver.base,
      history,
      random: random.fork('clients'),
      stopAt: t0 + durationMs,
      leaseMs: LEASE_MS,
    });
    const canary = new Canary({ front: cluster.front, nodes: cluster.nodes, history });
    sampling = true;
    const sampler = sampleFences({ cluster, history, until: () => !sampling });
    log(`schedule ${seed}-${index}: ${episodes.length} fault episodes over ${durationMs / 1000} s`);
    const [healedAt] = await Promise.all([
      playSchedule(episodes, { t0, cluster, receiver, workload, history, random, canary }),
      workload.run(),
    ]);
    await canary.done();
    meta.healedAt = healedAt;
    writeMeta();
    const readsAt = Math.max(healedAt, Date.now()) + settleMs;
    log(`schedule ${seed}-${index}: clients done; settling ${Math.round((readsAt - Date.now()) / 1000)} s before the final reads`);
    await sleep(readsAt - Date.now());
    meta.unloaded = await finalReads(workload, { loadAll: meta.finalLoads === 'all', random: random.fork('final') });
    // A delivery two receiver faults pushed along its retry schedule may be due after the settle time: its attempt is
    // waited for (at most the schedule's 7th step), so the checker judges deliveries made.
    meta.deliveriesWaitedMs = await awaitDueDeliveries({
      dataDir: cluster.dataDir,
      maxAttempts: WEBHOOK.maxAttempts,
      attemptMs: WEBHOOK.timeoutMs + 1_000,
      maxWaitMs: DUE_WAIT_MS + WEBHOOK.timeoutMs + 1_000,
    });
    sampling = false;
    await sampler;
    meta.endedAt = Date.now();
    writeMeta();
  } finally {
    sampling = false;
    await cluster.stopAll();
    await receiver.down();
    history.close();
    untrack();
  }
  return dir;
}

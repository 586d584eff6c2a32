import { existsSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sleep } from './processes.js';
import { FAULT_NAMES } from './schedule.js';

/** The pause point the `pause-append` fault arms (src/common/pause-point.ts; the ledger's fence check → append). */
export const PAUSE_POINT = 'ledger-append';

/**
 * Arms the node's pause point and waits until a write reaches it (the node then stops itself there), at most
 * `ms`. Resolves with the session it stopped in, or undefined when no write came (the point disarmed again).
 */
async function pauseAtAppend(node, ms) {
  const armed = join(node.pauseDir, PAUSE_POINT);
  const reached = `${armed}.reached`;
  writeFileSync(armed, '');
  const deadline = Date.now() + ms;
  while (Date.now() < deadline && !existsSync(reached)) await sleep(20);
  if (!existsSync(reached)) {
    try {
      unlinkSync(armed);
      return undefined;
    } catch {
      // The node took it as the time ran out: it is stopping there.
      for (let i = 0; i < 50 && !existsSync(reached); i += 1) await sleep(20);
    }
  }
  const sessionId = readFileSync(reached, 'utf8').trim();
  unlinkSync(reached);
  return sessionId;
}

/**
 * Plays a schedule: each lane in order, lanes at once. Resolves with the time the
 * last heal completed (a restarted node answering /health, Redis ready, the receiver listening).
 * After each node fault the canary watches the sessions the node owned, and the workload retries keys on them.
 */
/** Faults after which a node answers nothing, and the heals after which it answers again. */
const NODE_DOWN = new Set(['kill9', 'sigterm', 'sigstop', 'pause-append']);
const NODE_UP = new Set(['restart', 'sigcont']);

export async function playSchedule(episodes, { t0, cluster, receiver, workload, history, random, canary }) {
  const record = (fault, target, extra = {}) => {
    const entry = { type: 'fault', t: Date.now(), fault, target, ...extra };
    history.write(entry);
    // The canary asks the nodes that answer: a stopped or killed one is out until it is back (its heal, recorded once done).
    if (NODE_DOWN.has(fault)) canary?.nodeDown(target);
    else if (NODE_UP.has(fault)) canary?.nodeUp(target);
    return entry;
  };
  /** A node fault: recorded with the sessions its node owned, which the canary then watches. */
  const nodeFault = (fault, target, extra = {}) => {
    const owned = extra.owned ?? history.ownedBy(target);
    const entry = record(fault, target, { ...extra, owned });
    canary?.watch(entry);
    workload.afterFault(entry);
    return entry;
  };
  let healedAt = t0;
  const cutRandom = random.fork('cutter');
  const leaseRandom = random.fork('leases');
  const play = async (episode) => {
    const [fault, heal] = FAULT_NAMES[episode.kind];
    await sleep(t0 + episode.at - Date.now());
    const node = cluster.node(episode.target);
    switch (episode.kind) {
      case 'kill9':
        nodeFault(fault, episode.target);
        await node.child.kill();
        break;
      case 'sigstop':
        nodeFault(fault, episode.target);
        node.child.signal('SIGSTOP');
        break;
      case 'sigterm':
        nodeFault(fault, episode.target);
        await node.child.stop('SIGTERM', 10_000);
        break;
      case 'pause-append': {
        // The node stops itself when a write passes its fence check; the hold is counted from there.
        const length = episode.healAt - episode.at;
        const sessionId = await pauseAtAppend(node, length);
        if (!sessionId) {
          history.write({ type: 'fault-missed', t: Date.now(), fault, target: episode.target });
          return;
        }
        nodeFault(fault, episode.target, { sessionId });
        await sleep(length);
        node.child.signal('SIGCONT');
        record(heal, episode.target);
        healedAt = Math.max(healedAt, Date.now());
        return;
      }
      case 'redis':
        record(fault, 'redis');
        await cluster.redis.kill();
        break;
      case 'flushall':
        await cluster.admin.flushall().then(
          () => record(fault, 'redis'),
          (error) => history.write({ type: 'fault-missed', t: Date.now(), fault, target: 'redis', error: String(error) }),
        );
        return;
      case 'del-lease': {
        // One lease of the node's, deleted while every connection stays up (an eviction, a clock step on the Redis host).
        const leases = await cluster.leases().catch(() => ({}));
        const mine = Object.keys(leases).filter((sessionId) => leases[sessionId].node === episode.target);
        if (mine.length === 0) {
          history.write({ type: 'fault-missed', t: Date.now(), fault, target: episode.target });
          return;
        }
        const sessionId = leaseRandom.pick(mine.sort());
        await cluster.admin.del(`turns:lease:${sessionId}`);
        nodeFault(fault, episode.target, { sessionId, owned: [sessionId] });
        return;
      }
      case 'partition-redis':
        nodeFault(fault, episode.target);
        node.redisProxy.blackhole();
        break;
      case 'partition-peers':
        nodeFault(fault, episode.target);
        node.peerProxy.blackhole();
        break;
      case 'receiver-down':
        record(fault, 'receiver');
        await receiver.down();
        break;
      case 'receiver-slow':
        receiver.slowMs = episode.slowMs;
        receiver.mode = 'slow';
        record(fault, 'receiver');
        break;
      case 'receiver-500':
        receiver.mode = '500';
        record(fault, 'receiver');
        break;
      case 'cut-body':
        record(fault, 'c3');
        await workload.cutBody('c3', cutRandom).catch(() => undefined);
        return;
    }
    await sleep(t0 + episode.healAt - Date.now());
    switch (episode.kind) {
      case 'kill9':
      case 'sigterm':
        await cluster.startNode(node);
        break;
      case 'sigstop':
        node.child.signal('SIGCONT');
        break;
      case 'redis':
        await cluster.restartRedis();
        break;
      case 'partition-redis':
        node.redisProxy.heal();
        break;
      case 'partition-peers':
        node.peerProxy.heal();
        break;
      case 'receiver-down':
        await receiver.up();
        break;
      default:
        receiver.mode = 'ok';
    }
    record(heal, episode.target);
    healedAt = Math.max(healedAt, Date.now());
  };
  const lanes = new Map();
  for (const episode of episodes) lanes.set(episode.lane, [...(lanes.get(episode.lane) ?? []), episode]);
  await Promise.all(
    [...lanes.values()].map(async (lane) => {
      for (const episode of lane) await play(episode);
    }),
  );
  return healedAt;
}

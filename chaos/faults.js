import { sleep } from './processes.js';
import { FAULT_NAMES } from './schedule.js';

/**
 * Plays a schedule: each lane in order, lanes at once. Resolves with the time the
 * last heal completed (a restarted node answering /health, Redis ready, the receiver listening).
 */
export async function playSchedule(episodes, { t0, cluster, receiver, workload, history, random }) {
  const record = (fault, target) => history.write({ type: 'fault', t: Date.now(), fault, target });
  let healedAt = t0;
  const cutRandom = random.fork('cutter');
  const play = async (episode) => {
    const [fault, heal] = FAULT_NAMES[episode.kind];
    await sleep(t0 + episode.at - Date.now());
    const node = cluster.node(episode.target);
    switch (episode.kind) {
      case 'kill9':
        record(fault, episode.target);
        await node.child.kill();
        break;
      case 'sigstop':
        record(fault, episode.target);
        node.child.signal('SIGSTOP');
        break;
      case 'redis':
        record(fault, 'redis');
        await cluster.redis.kill();
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
        await cluster.startNode(node);
        break;
      case 'sigstop':
        node.child.signal('SIGCONT');
        break;
      case 'redis':
        await cluster.restartRedis();
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

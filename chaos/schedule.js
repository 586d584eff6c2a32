/**
 * A seeded fault schedule: episodes of one kind each (a fault and its heal), in
 * lanes that never overlap themselves (one node fault at a time, Redis, the
 * network, the receiver, the cutter) but do overlap each other, so faults
 * combine. Every fault heals by 80% of the duration; the rest of the run is quiet traffic.
 */
const KINDS = [
  'kill9',
  'kill9',
  'sigstop',
  'sigterm',
  'pause-append',
  'pause-append',
  'redis',
  'flushall',
  'del-lease',
  'del-lease',
  'partition-redis',
  'partition-peers',
  'receiver-down',
  'receiver-slow',
  'receiver-500',
  'cut-body',
];
const LANE = {
  kill9: 'nodes',
  sigstop: 'nodes',
  sigterm: 'nodes',
  'pause-append': 'nodes',
  redis: 'redis',
  flushall: 'redis',
  'del-lease': 'redis',
  'partition-redis': 'network',
  'partition-peers': 'network',
  'cut-body': 'cutter',
};
/** Faults over at once: what they break lasts, but there is nothing to heal. */
const INSTANT = new Set(['cut-body', 'flushall', 'del-lease']);
const NODES = ['n1', 'n2', 'n3'];

export function makeSchedule(random, { durationMs, leaseMs, webhookTimeoutMs }) {
  const episodes = [];
  const busyUntil = { nodes: 0, redis: 0, network: 0, receiver: 0, cutter: 0 };
  const lastHeal = Math.floor(durationMs * 0.8);
  let t = Math.floor(durationMs * 0.1);
  for (let n = 0; n < 100 && t < durationMs * 0.7; n += 1) {
    const kind = random.pick(KINDS);
    const lane = LANE[kind] ?? 'receiver';
    const at = Math.max(t, busyUntil[lane] + random.int(1_000, 3_000));
    const length = INSTANT.has(kind)
      ? 0
      : kind === 'sigstop' || kind === 'pause-append'
        ? random.int(Math.floor(leaseMs * 1.5), Math.floor(leaseMs * 2.5))
        : kind.startsWith('partition-')
          ? random.int(leaseMs, Math.floor(leaseMs * 2))
          : random.int(2_000, kind === 'kill9' || kind === 'sigterm' ? 8_000 : 5_000);
    if (at + length > lastHeal) break;
    const target =
      ['nodes', 'network'].includes(lane) || kind === 'del-lease'
        ? random.pick(NODES)
        : lane === 'redis'
          ? 'redis'
          : kind === 'cut-body'
            ? 'c3'
            : 'receiver';
    // A slow receiver answers past the sender's time limit half the time: the attempt fails although it arrived.
    const slowMs = kind === 'receiver-slow' ? (random.chance(0.5) ? webhookTimeoutMs + 500 : Math.floor(webhookTimeoutMs / 2)) : undefined;
    episodes.push({ kind, lane, target, at, healAt: at + length, ...(slowMs !== undefined && { slowMs }) });
    busyUntil[lane] = at + length;
    t = at + random.int(1_000, 5_000);
  }
  return episodes;
}

/** The fault and heal records' names of CHAOS-HISTORY.md for an episode. */
export const FAULT_NAMES = {
  kill9: ['kill9', 'restart'],
  sigstop: ['sigstop', 'sigcont'],
  sigterm: ['sigterm', 'restart'],
  'pause-append': ['pause-append', 'sigcont'],
  redis: ['redis-kill', 'redis-restart'],
  flushall: ['flushall', null],
  'del-lease': ['del-lease', null],
  'partition-redis': ['partition-redis', 'partition-healed'],
  'partition-peers': ['partition-peers', 'partition-healed'],
  'receiver-down': ['receiver-down', 'receiver-up'],
  'receiver-slow': ['receiver-slow', 'receiver-ok'],
  'receiver-500': ['receiver-500', 'receiver-ok'],
  'cut-body': ['cut-body', null],
};

/** Faults after which a node's sessions may need another owner: the canary watches them. */
export const NODE_FAULTS = new Set(['kill9', 'sigstop', 'sigterm', 'pause-append', 'del-lease', 'partition-redis', 'partition-peers']);

// @ts-check
// The failover figure of the system, from the canary (chaos/canary.js): after a node fault, for each session the node
// owned, the first 2xx of an unretried `GET /turns/current` sent every 200 ms − the fault's time, split into the
// lease's expiry, the claim (the canary's load) and serving. Property: each is within the lease + the run's load p99 +
// 0.5 s, + the time Redis was down inside the sample (no node may claim then: 503 cluster_unavailable, by design),
// + a lease when Redis lost its data inside it (a FLUSHALL, a restart): a claim then waits out a previous owner that
// does not answer, since nothing says its lease is over (the lease handover, docs/cluster.md).
// A watch of a session with nothing to load (no transcript: nothing admitted) is censored, reported apart.
import { summarize } from './percentiles.js';
import { isSuccess, opsOf } from './turn-observations.js';

/** @typedef {import('./types.js').Run} Run */
/** @typedef {import('./types.js').Violation} Violation */

export const name = 'failover-bound';
export const description = "a faulted node's sessions answer 2xx within the lease + the run's load p99 + 0.5 s";

export const SLACK_MS = 500;

/**
 * One (fault, session) of the canary.
 * @typedef {object} FailoverSample
 * @property {string} fault
 * @property {string} target
 * @property {string} sessionId
 * @property {number} at the fault's time
 * @property {number} totalMs to the first 2xx (to the watch's end when there was none)
 * @property {number} expiryMs to the claim's start (to the first 2xx's start without one)
 * @property {number} claimMs the successful load's duration (0 without one)
 * @property {number} servingMs from the claim's end (or the first 2xx's start) to the first 2xx
 * @property {number} redisDownMs how long Redis was down (killed, not yet restarted) between the fault and `totalMs`
 * @property {boolean} redisLost whether Redis lost its data (`flushall`, `redis-restart`) between the fault and then, or
 *   so shortly before it that the daemon's marker of the loss still stood (a third of a lease + a lease: see `lossMarkedMs`)
 * @property {boolean} answered
 * @property {boolean} censored
 * @property {any[]} ops the fault, the load and the first 2xx
 */

/**
 * @param {Run} run
 * @returns {FailoverSample[]}
 */
export function canarySamples(run) {
  const canaryOps = opsOf(run.history).filter((op) => typeof op.canary === 'number');
  const ends = /** @type {any[]} */ (run.history.filter((r) => r.type === 'canary-end'));
  // A session with no transcript had nothing admitted: no node can load it, so its watch has no end to measure.
  const loadable = new Set(run.data.transcripts.map((t) => t.sessionId));
  const outages = redisOutages(run.history);
  const downWithin = (/** @type {number} */ from, /** @type {number} */ to) =>
    outages.reduce((sum, outage) => sum + Math.max(0, Math.min(to, outage.to) - Math.max(from, outage.from)), 0);
  const losses = redisLosses(run.history);
  const marked = lossMarkedMs(run);
  // A loss marks claims for a lease from the next script that sees it, at most a third of a lease later.
  const lostWithin = (/** @type {number} */ from, /** @type {number} */ to) => losses.some((t) => t >= from - marked && t <= to);
  /** @type {FailoverSample[]} */
  const samples = [];
  for (const fault of run.history) {
    if (fault.type !== 'fault' || !Array.isArray(fault.owned)) continue;
    for (const sessionId of fault.owned) {
      const mine = canaryOps.filter((op) => op.canary === fault.t && op.sessionId === sessionId);
      const end = ends.find((r) => r.canary === fault.t && r.sessionId === sessionId);
      if (mine.length === 0 && !end) continue;
      const first = mine.filter((op) => op.op === 'current' && isSuccess(op)).sort((a, b) => a.end - b.end)[0];
      const load = mine
        .filter((op) => op.op === 'load' && isSuccess(op) && (!first || op.end <= first.end))
        .sort((a, b) => a.end - b.end)[0];
      const base = { fault: fault.fault, target: fault.target, sessionId, at: fault.t };
      if (!first) {
        const until = end?.t ?? Math.max(fault.t, ...mine.map((op) => op.end));
        samples.push({
          ...base,
          totalMs: until - fault.t,
          expiryMs: until - fault.t,
          claimMs: 0,
          servingMs: 0,
          redisDownMs: downWithin(fault.t, until),
          redisLost: lostWithin(fault.t, until),
          answered: false,
          censored: !loadable.has(sessionId),
          ops: [fault],
        });
        continue;
      }
      const claimStart = load ? load.start : first.start;
      samples.push({
        ...base,
        totalMs: first.end - fault.t,
        expiryMs: Math.max(0, claimStart - fault.t),
        claimMs: load ? load.end - load.start : 0,
        servingMs: first.end - (load ? load.end : first.start),
        redisDownMs: downWithin(fault.t, first.end),
        redisLost: lostWithin(fault.t, first.end),
        answered: true,
        censored: false,
        ops: [fault, ...(load ? [load] : []), first],
      });
    }
  }
  return samples;
}

/**
 * The spans Redis was down: from each `redis-kill` to the `redis-restart` after it (to the run's end without one).
 * @param {import('./types.js').HistoryRecord[]} history
 */
export function redisOutages(history) {
  /** @type {{ from: number, to: number }[]} */
  const outages = [];
  for (const record of history) {
    if (record.type !== 'fault') continue;
    const open = outages.at(-1);
    if (record.fault === 'redis-kill') outages.push({ from: record.t, to: Infinity });
    else if (record.fault === 'redis-restart' && open?.to === Infinity) open.to = record.t;
  }
  return outages;
}

/** How long after a loss of Redis's data claims ask the previous owner (docs/cluster.md): a third of a lease + a lease. */
export function lossMarkedMs(/** @type {Run} */ run) {
  return ((run.meta.leaseMs ?? 0) * 4) / 3;
}

/**
 * When Redis lost its data: each `flushall`, and each `redis-restart` (it comes back empty).
 * @param {import('./types.js').HistoryRecord[]} history
 */
export function redisLosses(history) {
  /** @type {number[]} */
  const losses = [];
  for (const record of history)
    if (record.type === 'fault' && (record.fault === 'flushall' || record.fault === 'redis-restart')) losses.push(record.t);
  return losses;
}

/** The run's load p99 (ms): every `load` answered 2xx, whoever sent it. */
export function loadP99(/** @type {Run} */ run) {
  return (
    summarize(
      opsOf(run.history)
        .filter((op) => op.op === 'load' && isSuccess(op))
        .map((op) => op.end - op.start),
    ).p99 ?? 0
  );
}

/** The bound each sample is held to: the lease + the run's load p99 + 0.5 s. */
export function failoverBound(/** @type {Run} */ run) {
  return (run.meta.leaseMs ?? 0) + loadP99(run) + SLACK_MS;
}

/**
 * A node fault alone: Redis neither down nor emptied inside the sample. The failover of the system for a node fault;
 * a sample with a Redis fault inside also measures that fault (no claim while Redis is down; a claim after a loss
 * waits out a previous owner that does not answer), and is bounded for it.
 * @param {FailoverSample} sample
 */
export function nodeFaultAlone(sample) {
  return sample.redisDownMs === 0 && !sample.redisLost;
}

/**
 * The figure: total and its three parts (p50/p99) over the answered samples, the total over those of a node fault
 * alone; the censored and unanswered counted apart.
 */
export function failoverFigure(/** @type {Run} */ run) {
  const samples = canarySamples(run);
  const answered = samples.filter((s) => s.answered);
  return {
    totalMs: summarize(answered.map((s) => s.totalMs)),
    nodeFaultAloneMs: summarize(answered.filter(nodeFaultAlone).map((s) => s.totalMs)),
    expiryMs: summarize(answered.map((s) => s.expiryMs)),
    claimMs: summarize(answered.map((s) => s.claimMs)),
    servingMs: summarize(answered.map((s) => s.servingMs)),
    boundMs: failoverBound(run),
    censored: samples.filter((s) => s.censored).length,
    unanswered: samples.filter((s) => !s.answered && !s.censored).length,
  };
}

/**
 * @param {Run} run
 * @returns {Violation[]}
 */
export function check(run) {
  const bound = failoverBound(run);
  /** @type {Violation[]} */
  const violations = [];
  for (const sample of canarySamples(run)) {
    const lostMs = sample.redisLost ? (run.meta.leaseMs ?? 0) : 0;
    if (sample.censored || (sample.answered && sample.totalMs <= bound + sample.redisDownMs + lostMs)) continue;
    const down = `${sample.redisDownMs > 0 ? ` + ${sample.redisDownMs} ms Redis was down` : ''}${lostMs > 0 ? ` + a lease (Redis lost its data)` : ''}`;
    const split = `expiry ${sample.expiryMs} + claim ${sample.claimMs} + serving ${sample.servingMs}`;
    violations.push({
      kind: `${sample.answered ? 'over-bound' : 'never-answered'}:${sample.fault}`,
      message: sample.answered
        ? `after ${sample.fault} of ${sample.target}, session ${sample.sessionId} answered 2xx in ${sample.totalMs} ms (${split}), over the bound ${bound} ms${down}`
        : `after ${sample.fault} of ${sample.target}, session ${sample.sessionId} answered no 2xx in the ${sample.totalMs} ms the canary watched`,
      slice: sample.ops,
    });
  }
  return violations;
}

import { TOKEN } from './cluster.js';
import { sleep } from './processes.js';
import { recordingFetch } from './recording-fetch.js';

/** One request every 200 ms a session; a request (a load too) gets 2 s: a stopped node holds its socket open. */
const EVERY_MS = 200;
const TIMEOUT_MS = 2_000;
/** How long a (fault, session) is watched at most: far past the bound the checker holds it to. */
export const WATCH_MS = 30_000;
/** Loads that found no transcript before the watch gives up on a session nothing can serve (censored). */
const NOTHING_TO_LOAD = 3;

/**
 * The failover figure's probe (docs/reliability.md): after a node fault, for each
 * session the node owned, one unretried `GET /session/:id/turns/current` every
 * 200 ms through the front until one answers 2xx; each `404 session_not_found`
 * sends a load, unretried like the polls, to the node that answered the 404
 * (alive, and holding no lease on it). Through the front, round-robin hands
 * the request after one node's answer to the next node: after a 404 from the
 * node before a stopped one, every load hung there (SEED=7717 schedule 1: seven
 * in a row, 2.6 s past the lease). The polls go to the nodes in turn, skipping
 * those the faults have stopped or killed until they are back, as through a
 * front whose health check is exact: nginx has none, so through it a third of
 * the polls hung on a stopped node, and after a restart it kept the node out
 * for its fail_timeout (the system's failover is the figure, not the demo
 * front's; see docs/reliability.md). A load that answers 2xx is followed by a
 * poll at once.
 * Its ops carry `canary: <the fault's t>`;
 * a `canary-end` record closes each watch. A session whose loads found no
 * transcript three times is left alone: nothing was admitted to it.
 */
export class Canary {
  constructor({ front, nodes = [], history }) {
    Object.assign(this, { front, history });
    /** Each node's own address, by the name it answers with in `X-Turns-Node`. */
    this.nodeUrls = new Map(nodes.map((node) => [node.name, node.url]));
    /** Nodes stopped or killed by a fault and not back yet. */
    this.down = new Set();
    this.watches = [];
  }

  nodeDown(name) {
    this.down.add(name);
  }

  nodeUp(name) {
    this.down.delete(name);
  }

  watch(fault) {
    for (const sessionId of fault.owned ?? []) this.watches.push(this.follow(fault, sessionId));
  }

  /** Resolves once every watch has ended. */
  async done() {
    await Promise.allSettled(this.watches);
  }

  async follow(fault, sessionId) {
    const send = recordingFetch(this.history, 'canary', { extra: { canary: fault.t } });
    /** A fetch straight to one node, recorded as sent `via` it. */
    const sendTo = (node) => recordingFetch(this.history, 'canary', { via: node, extra: { canary: fault.t } });
    const headers = { authorization: `Bearer ${TOKEN}` };
    const session = `/session/${encodeURIComponent(sessionId)}`;
    let polls = 0;
    const sent = [];
    let answered = false;
    let watching = true;
    let lost = 0;
    const deadline = fault.t + WATCH_MS;
    const load = async (node) => {
      const url = this.nodeUrls.get(node);
      const res = await (url ? sendTo(node) : send)(`${url ?? this.front}${session}/load`, {
        method: 'POST',
        headers,
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      if (res.status === 404) lost += 1;
      // Served from here on, if the system works: asked at once, so the figure is not the 200 ms tick's.
      else if (res.ok && !answered && watching) sent.push(poll().catch(() => undefined));
    };
    const poll = async () => {
      const live = [...this.nodeUrls.keys()].filter((node) => !this.down.has(node));
      const node = live.length > 0 ? live[polls++ % live.length] : undefined;
      const res = await (node ? sendTo(node) : send)(`${node ? this.nodeUrls.get(node) : this.front}${session}/turns/current`, {
        headers,
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      if (res.ok) answered = true;
      else if (res.status === 404 && !answered && watching) {
        const body = await res.json().catch(() => ({}));
        if (body.code === 'session_not_found') sent.push(load(res.headers.get('x-turns-node')).catch(() => undefined));
      }
    };
    const nothingToLoad = () => lost >= NOTHING_TO_LOAD;
    while (!answered && Date.now() < deadline && !nothingToLoad()) {
      sent.push(poll().catch(() => undefined));
      await sleep(EVERY_MS);
    }
    watching = false;
    // A poll may add its load while this waits: settle until nothing new came.
    for (let settled = 0; settled < sent.length;) {
      const batch = sent.slice(settled);
      settled = sent.length;
      await Promise.allSettled(batch);
    }
    this.history.write({
      type: 'canary-end',
      t: Date.now(),
      canary: fault.t,
      fault: fault.fault,
      target: fault.target,
      sessionId,
      answered,
      // The checker decides what is censored (a session without a transcript); this says why a watch ended early.
      lost,
    });
  }
}

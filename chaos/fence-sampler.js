import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { sleep } from './processes.js';

const EVERY_MS = 250;

/**
 * The highest fence recorded on the data dir for each session, and the node its file names: the daemon's layout,
 * `cluster/fence-files/<sessionId>/<fence>` holding `{"node","url"}` (a fence whose holder is not written yet is left
 * for the next sample), and the one-file `cluster/fences/<sessionId>` of earlier versions (a number, no node), or a
 * directory of fence files there. The highest of both wins; an unreadable or empty one is left out.
 * @returns {Record<string, { fence: number, node?: string }>}
 */
export function recordedFences(dataDir) {
  /** @type {Record<string, { fence: number, node?: string }>} */
  const fences = {};
  const keep = (sessionId, fence, node) => {
    if (fence !== undefined && fence > (fences[sessionId]?.fence ?? 0)) fences[sessionId] = { fence, ...(node && { node }) };
  };
  const read = (path) => {
    try {
      return readFileSync(path, 'utf8').trim();
    } catch {
      return '';
    }
  };
  const numberIn = (path) => {
    const text = read(path);
    return /^\d+$/.test(text) ? Number(text) : undefined;
  };
  for (const sessionId of entriesOf(join(dataDir, 'cluster', 'fence-files'))) {
    const dir = join(dataDir, 'cluster', 'fence-files', sessionId);
    const names = entriesOf(dir).filter((name) => /^\d+$/.test(name));
    const highest = names.sort((a, b) => Number(b) - Number(a))[0];
    if (highest === undefined) continue;
    const node = holderOf(read(join(dir, highest)));
    if (node) keep(sessionId, Number(highest), node);
  }
  const legacy = join(dataDir, 'cluster', 'fences');
  for (const name of entriesOf(legacy)) {
    if (name.includes('.')) continue; // a temporary file on its way in
    const path = join(legacy, name);
    let fence;
    if (isDirectory(path)) {
      for (const inner of entriesOf(path)) {
        const value = /^\d+$/.test(inner) ? Number(inner) : numberIn(join(path, inner));
        if (value !== undefined) fence = Math.max(fence ?? 0, value);
      }
    } else fence = numberIn(path);
    keep(name, fence);
  }
  return fences;
}

function entriesOf(dir) {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function isDirectory(path) {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The node a fence file names (`{"node","url"}`), or undefined while it is being written. */
function holderOf(text) {
  try {
    const node = JSON.parse(text)?.node;
    return typeof node === 'string' && node !== '' ? node : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Every 250 ms until `stopAt`: the fences on the data dir and the leases in Redis, each change a `fence` record
 * (`source` file: what the storage enforces; lease: which node holds which fence). The checker's
 * `fences-monotonic` and `fenced-node-silent` read them.
 */
export async function sampleFences({ cluster, history, until }) {
  const seen = new Map();
  const note = (source, sessionId, fence, node) => {
    const key = `${source}\0${sessionId}`;
    const last = seen.get(key);
    if (last && last.fence === fence && last.node === node) return;
    seen.set(key, { fence, node });
    history.write({ type: 'fence', t: Date.now(), source, sessionId, fence, ...(node && { node }) });
  };
  while (!until()) {
    // A directory removed while it is read is read again at the next sample.
    const fences = (() => {
      try {
        return recordedFences(cluster.dataDir);
      } catch {
        return {};
      }
    })();
    for (const [sessionId, { fence, node }] of Object.entries(fences)) note('file', sessionId, fence, node);
    const leases = await cluster.leases().catch(() => ({}));
    for (const [sessionId, { node, fence }] of Object.entries(leases)) note('lease', sessionId, fence, node);
    await sleep(EVERY_MS);
  }
}

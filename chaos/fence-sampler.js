import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { sleep } from './processes.js';

const EVERY_MS = 250;

/**
 * The highest fence recorded on the data dir for each session: a file holding the number, or a directory of fence
 * files (one a claim), whose highest numeric name or content wins. An unreadable or empty one is left out.
 */
export function recordedFences(dataDir) {
  const root = join(dataDir, 'cluster', 'fences');
  const fences = {};
  let entries = [];
  try {
    entries = readdirSync(root, { withFileTypes: true });
  } catch {
    return fences;
  }
  const numberIn = (path) => {
    try {
      const text = readFileSync(path, 'utf8').trim();
      return /^\d+$/.test(text) ? Number(text) : undefined;
    } catch {
      return undefined;
    }
  };
  for (const entry of entries) {
    if (entry.name.includes('.')) continue; // a temporary file on its way in
    const path = join(root, entry.name);
    let fence;
    if (entry.isDirectory()) {
      for (const inner of readdirSync(path)) {
        const value = /^\d+$/.test(inner) ? Number(inner) : statSync(join(path, inner)).isFile() ? numberIn(join(path, inner)) : undefined;
        if (value !== undefined) fence = Math.max(fence ?? 0, value);
      }
    } else fence = numberIn(path);
    if (fence !== undefined) fences[entry.name] = fence;
  }
  return fences;
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
    for (const [sessionId, fence] of Object.entries(fences)) note('file', sessionId, fence);
    const leases = await cluster.leases().catch(() => ({}));
    for (const [sessionId, { node, fence }] of Object.entries(leases)) note('lease', sessionId, fence, node);
    await sleep(EVERY_MS);
  }
}

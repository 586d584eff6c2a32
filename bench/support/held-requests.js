// Held GETs at scale, for the benchmarks: a lean client (a raw socket per
// request) and one measured phase — hold them all, measure the server's RSS
// and CPU while they wait, then time each answer after the terminal
// transition its body reports. Linux (/proc) only.
import { setMaxListeners } from 'node:events';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export { sleep };

export const rssMb = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
export const cpuTicks = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(fields[11]) + Number(fields[12]); // utime + stime, in clock ticks (100/s)
};
export const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};

/**
 * One held GET on its own connection (`Connection: close`), from a client as
 * lean as a client gets — a raw socket, the request written once, the answer
 * timed at its first byte — so that the figures are the server's, not the
 * cost of parsing ten thousand answers in this process. Resolves with the
 * status code, the body and the arrival time (ms since the epoch).
 */
export function hold(url, signal) {
  const { hostname, port, pathname, search } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    const chunks = [];
    let at = 0;
    socket.on('data', (chunk) => {
      at ||= Date.now();
      chunks.push(chunk);
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      resolve({ status, body: text.slice(text.indexOf('\r\n\r\n') + 4), at });
    });
    signal?.addEventListener('abort', () => socket.destroy(), { once: true });
    socket.write(`GET ${pathname}${search} HTTP/1.1\r\nHost: ${hostname}\r\nConnection: close\r\n\r\n`);
  });
}

/** A request's JSON answer (`undefined` for a 204). */
export async function json(base, path, init) {
  const res = await fetch(`${base}${path}`, init);
  return res.status === 204 ? undefined : res.json();
}
export const post = (body) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

export async function waitForCount(base, count, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { waiters } = await json(base, '/debug/stats');
    if (waiters === count || Date.now() > deadline) return waiters;
    await sleep(50);
  }
}

/** Starts one held GET per url, the connections opening in steps so the listen backlog never overflows into SYN retries. */
async function holdAll(urls, signal) {
  const answers = [];
  for (const url of urls) {
    answers.push(hold(url, signal));
    if (answers.length % 500 === 0) await sleep(10);
  }
  return answers;
}

/** Holds `urls` at once, measures while they wait, then reports how fast they were answered after each prompt ended. */
export async function heldPhase(daemon, urls) {
  const rssBefore = rssMb(daemon.child.pid);
  const answers = await holdAll(urls);
  const held = await waitForCount(daemon.url, urls.length);
  const rssHeld = rssMb(daemon.child.pid);
  const cpu0 = cpuTicks(daemon.child.pid);
  await sleep(2_000);
  const cpuPercent = (cpuTicks(daemon.child.pid) - cpu0) / 2; // ticks over 2 s → % of one core
  const results = await Promise.all(answers);
  const after = results
    .filter((r) => r.status === 200)
    .map((r) => r.at - JSON.parse(r.body).endedAt)
    .filter(Number.isFinite);
  return {
    held,
    answered: after.length,
    p50: percentile(after, 50),
    p99: percentile(after, 99),
    rssGrowth: rssHeld - rssBefore,
    cpuPercent,
  };
}

/**
 * Holds `urls` at once, then every client goes away: how many the server
 * held, how many it still holds once they are gone, its RSS while they were
 * held and 3 s after. `whileHeld` runs while they are all held.
 */
export async function abortedPhase(server, urls, whileHeld = async () => undefined) {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  const answers = await holdAll(urls, controller.signal);
  const held = await waitForCount(server.url, urls.length);
  const rssHeld = rssMb(server.child.pid);
  const during = await whileHeld();
  controller.abort();
  await Promise.all(answers);
  const left = await waitForCount(server.url, 0, 10_000);
  await sleep(3_000);
  return { held, left, rssHeld, rssAfter: rssMb(server.child.pid), during };
}

/**
 * The server's V8 heap (MB, from its /debug/stats) right after a full GC:
 * SIGUSR2 makes a server started with `--heapsnapshot-signal=SIGUSR2
 * --diagnostic-dir=<dir>` write a heap snapshot, which collects first. The
 * snapshot is deleted once written.
 */
export async function heapAfterFullGc(server, dir) {
  const before = new Set(readdirSync(dir));
  server.child.kill('SIGUSR2');
  let written = [];
  for (let i = 0; i < 1_200 && written.length === 0; i += 1) {
    await sleep(100);
    written = readdirSync(dir).filter((name) => !before.has(name));
  }
  // Answered once the snapshot is written (the server is single-threaded). A snapshot
  // pauses the server for seconds: a pooled keep-alive connection may be closed under
  // the request as it resumes, so the read is retried.
  let stats;
  for (let attempt = 0; !stats; attempt += 1) {
    stats = await json(server.url, '/debug/stats').catch((error) => {
      if (attempt >= 4) throw error;
    });
    if (!stats) await sleep(200);
  }
  const { heapUsedBytes } = stats;
  for (const name of written) rmSync(join(dir, name), { force: true });
  return heapUsedBytes / 1024 / 1024;
}

/**
 * Clients that vanish, twice: the first round for RSS (before any snapshot,
 * as writing one grows it), the second between heaps measured after a full
 * GC — before, while all are held (what a held request weighs) and after
 * (what vanished clients leave behind). The server must run with the
 * snapshot flags of {@link heapAfterFullGc} for `dir`.
 */
export async function vanishingClients(server, urls, dir) {
  const rssBefore = rssMb(server.child.pid);
  const first = await abortedPhase(server, urls);
  const heapBefore = await heapAfterFullGc(server, dir);
  const second = await abortedPhase(server, urls, () => heapAfterFullGc(server, dir));
  const heapAfter = await heapAfterFullGc(server, dir);
  return {
    left: [first.left, second.left],
    held: [first.held, second.held],
    line:
      `RSS before ${rssBefore.toFixed(0)} MB, while held ${first.rssHeld.toFixed(0)} MB, 3 s after ${first.rssAfter.toFixed(0)} MB; ` +
      `V8 heap after a full GC: ${heapBefore.toFixed(0)} MB before, ${second.during.toFixed(0)} MB while held ` +
      `(${(((second.during - heapBefore) * 1024) / urls.length).toFixed(1)} KB a held request), ${heapAfter.toFixed(0)} MB after`,
  };
}

/** The Node flags that make a server write a heap snapshot (after a full GC) into `dir` on SIGUSR2. */
export const snapshotFlags = (dir) => `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${dir}`;

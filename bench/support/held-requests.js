// Held GETs at scale, for the benchmarks: a lean client (a raw socket per
// request) and one measured phase — hold them all, measure the server's RSS
// and CPU while they wait, then time each answer after the terminal
// transition its body reports. Linux (/proc) only.
import { setMaxListeners } from 'node:events';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';

export const rssMb = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
export const cpuTicks = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(fields[11]) + Number(fields[12]); // utime + stime, in clock ticks (100/s)
};
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
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

export async function json(base, path, init) {
  const res = await fetch(`${base}${path}`, init);
  return res.json();
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
 * held and 3 s after.
 */
export async function abortedPhase(server, urls) {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  const answers = await holdAll(urls, controller.signal);
  const held = await waitForCount(server.url, urls.length);
  const rssHeld = rssMb(server.child.pid);
  controller.abort();
  await Promise.all(answers);
  const left = await waitForCount(server.url, 0, 10_000);
  await sleep(3_000);
  return { held, left, rssHeld, rssAfter: rssMb(server.child.pid) };
}

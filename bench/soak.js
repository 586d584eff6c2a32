// Soak: the daemon (a child process, built from dist/) under steady load on
// each adapter — prompts admitted continuously and 20 pollers — for
// SOAK_SECONDS (default 60). Prints admitted vs settled, 5xx answers, and
// the daemon's RSS first / last / max. Loopback only; bounded in time.
//
//   npm run soak                  (both adapters, 60 s each)
//   SOAK_SECONDS=10 npm run soak
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemonProcess } from './support/daemon-process.js';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 60);
const POLLERS = 20;
const SESSIONS = 10;

const rssMb = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

async function soak(httpAdapter) {
  const dataDir = mkdtempSync(join(tmpdir(), 'turns-soak-'));
  const { child, url, stop } = await startDaemonProcess({
    TURNS_DATA_DIR: dataDir,
    TURNS_WORKSPACES: dataDir,
    TURNS_HTTP_ADAPTER: httpAdapter,
    TURNS_ECHO_DELAY_MS: '20',
  });
  const counts = { admitted: 0, settled: 0, full: 0, polls: 0, serverErrors: 0, otherErrors: 0 };
  const pending = [];
  const rss = [];
  const heap = [];
  const sampler = setInterval(() => {
    rss.push(rssMb(child.pid));
    if (rss.length % 10 === 0) {
      fetch(`${url}/debug/stats`)
        .then((res) => res.json())
        .then(
          (stats) => heap.push(stats.heapUsedBytes / 1024 / 1024),
          () => undefined,
        );
    }
  }, 1_000);
  const deadline = Date.now() + SECONDS * 1_000;
  const call = async (path, init) => {
    const res = await fetch(`${url}${path}`, init);
    if (res.status >= 500 && res.status !== 503) counts.serverErrors += 1;
    return res;
  };
  try {
    const sessions = [];
    for (let i = 0; i < SESSIONS; i += 1) {
      const res = await call('/session', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ sessionScope: 'thread' }),
      });
      sessions.push(await res.json());
    }
    const admitter = async (session) => {
      while (Date.now() < deadline) {
        const res = await call(`/session/${session.sessionId}/prompt`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-qwen-client-id': session.clientId },
          body: JSON.stringify({ prompt: [{ type: 'text', text: `soak ${counts.admitted}` }] }),
        });
        if (res.status === 202) {
          counts.admitted += 1;
          pending.push({ sessionId: session.sessionId, promptId: (await res.json()).promptId });
        } else {
          if (res.status === 503) counts.full += 1;
          else counts.otherErrors += 1;
          await res.arrayBuffer();
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
    };
    const poller = async (n) => {
      while (Date.now() < deadline) {
        const session = sessions[n % sessions.length];
        const exact = pending[(n * 7919 + counts.polls) % Math.max(1, pending.length)];
        const path =
          exact && n % 2 === 0 ? `/session/${exact.sessionId}/turns/${exact.promptId}` : `/session/${session.sessionId}/turns/current`;
        const res = await call(path);
        counts.polls += 1;
        if (res.status !== 200) counts.otherErrors += 1;
        await res.arrayBuffer();
      }
    };
    await Promise.all([...sessions.map(admitter), ...Array.from({ length: POLLERS }, (_, n) => poller(n))]);
    // Every admitted prompt must settle (the overlay and the transcript answer it).
    for (const { sessionId, promptId } of pending) {
      for (let i = 0; i < 200; i += 1) {
        const res = await call(`/session/${sessionId}/turns/${promptId}`);
        const body = await res.json();
        if (res.status === 200 && !['queued', 'running'].includes(body.state)) {
          counts.settled += 1;
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    }
  } finally {
    clearInterval(sampler);
    await stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const fmt = (n) => n.toFixed(0);
  console.log(
    `${httpAdapter.padEnd(8)} admitted ${counts.admitted}, settled ${counts.settled}, queue-full 503s ${counts.full}, polls ${counts.polls}, 5xx ${counts.serverErrors}, other errors ${counts.otherErrors}; ` +
      `RSS MB first ${fmt(rss[0] ?? 0)} / last ${fmt(rss.at(-1) ?? 0)} / max ${fmt(Math.max(...rss))}; V8 heap MB every 10 s ${heap.map(fmt).join(' ')}`,
  );
  return counts.admitted === counts.settled && counts.serverErrors === 0;
}

console.log(
  `soak: ${SECONDS} s per adapter, ${SESSIONS} sessions admitting continuously, ${POLLERS} pollers, echo engine spread over 20 ms`,
);
let ok = true;
for (const adapter of ['express', 'fastify']) ok = (await soak(adapter)) && ok;
process.exit(ok ? 0 : 1);

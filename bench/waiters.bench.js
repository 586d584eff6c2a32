// Held requests (long-poll) at scale, against the daemon (built from dist/,
// a child process) on each adapter. Prints, per adapter:
//   - 10,000 waiters on one running prompt: answered, p50/p99 ms after its
//     terminal transition, daemon RSS growth while they wait, daemon CPU
//     while they wait;
//   - waiters on 1,000 prompts across 100 sessions (10,000 in all): the same;
//   - 10,000 waits whose clients go away, twice: waiters left (debug counter),
//     RSS before / while held / after, and the V8 heap after a full GC (forced
//     by a heap snapshot) before, while held (→ KB a held request) and after;
//   - requests a client sends for one 30 s prompt: long-poll vs polling at
//     Retry-After: 1 (WAIT_PROMPT_MS to change the 30 s).
//   - the floor: the same held and aborted phases against bare node:http
//     answering the same bytes (bench/support/held-baseline-server.js); each adapter's
//     p99 and RSS growth are also printed as multiples of it.
// The client is a raw socket per request (`hold` in support/held-requests.js), so what is measured is
// the server, as far as one machine allows: client and server share its cores.
// Loopback only; every phase is bounded in time.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemonWithData, startProcess } from './support/daemon-process.js';
import { heldPhase, json, post, sleep, snapshotFlags, vanishingClients } from './support/held-requests.js';
import { TurnsClient } from '../dist/client/index.js';
import { clientGoneAb } from './support/client-gone-ab.js';

const WAITERS = Number(process.env.WAITERS ?? 10_000);
const PROMPT_MS = Number(process.env.WAIT_PROMPT_MS ?? 30_000);

function startDaemon(httpAdapter, env) {
  return startDaemonWithData(httpAdapter, {
    TURNS_MAX_WAITERS: '20000',
    TURNS_MAX_WAIT_MS: '300000',
    TURNS_MAX_SESSIONS: '200',
    TURNS_MAX_PENDING_PROMPTS: '20',
    ...env,
  });
}

async function bench(httpAdapter, floor) {
  const vsFloor = (r) =>
    `; ${(r.p99 / floor.p99).toFixed(1)}× the floor's p99, ${(r.rssGrowth / floor.rssGrowth).toFixed(1)}× its RSS growth`;
  const lines = [];
  // One running prompt, 10,000 waiters.
  {
    // The prompt ends 20 s after admission: time enough to hold them all on a busy machine.
    const daemon = await startDaemon(httpAdapter, { TURNS_ECHO_DELAY_MS: '20000' });
    try {
      const { sessionId } = await json(daemon.url, '/session', post({ sessionScope: 'thread' }));
      const { promptId } = await json(daemon.url, `/session/${sessionId}/prompt`, post({ prompt: [{ type: 'text', text: 'one' }] }));
      const r = await heldPhase(
        daemon,
        Array.from({ length: WAITERS }, () => `${daemon.url}/session/${sessionId}/turns/${promptId}?waitMs=120000`),
      );
      lines.push(
        `${WAITERS} waiters, 1 prompt: held ${r.held}, answered ${r.answered}, after the terminal p50 ${r.p50} ms p99 ${r.p99} ms, RSS +${r.rssGrowth.toFixed(1)} MB, CPU while waiting ${r.cpuPercent.toFixed(1)}%${vsFloor(r)}`,
      );
    } finally {
      await daemon.stop();
    }
  }
  // 1,000 prompts across 100 sessions.
  {
    // Prompts never finish on their own; the server deadline ends each one 30 s after its
    // admission (queued ones too), so all waiters are held before the first one ends.
    const daemon = await startDaemon(httpAdapter, { TURNS_ECHO_DELAY_MS: '600000', TURNS_PROMPT_DEADLINE_MS: '30000' });
    try {
      const urls = [];
      for (let s = 0; s < 100; s += 1) {
        const { sessionId } = await json(daemon.url, '/session', post({ sessionScope: 'thread' }));
        for (let p = 0; p < 10; p += 1) {
          const { promptId } = await json(daemon.url, `/session/${sessionId}/prompt`, post({ prompt: [{ type: 'text', text: `p${p}` }] }));
          for (let w = 0; w < WAITERS / 1_000; w += 1) urls.push(`${daemon.url}/session/${sessionId}/turns/${promptId}?waitMs=120000`);
        }
      }
      const r = await heldPhase(daemon, urls);
      lines.push(
        `${urls.length} waiters, 1,000 prompts in 100 sessions: held at once ${r.held}, answered ${r.answered}, after each terminal p50 ${r.p50} ms p99 ${r.p99} ms, RSS +${r.rssGrowth.toFixed(1)} MB, CPU while waiting ${r.cpuPercent.toFixed(1)}%${vsFloor(r)}`,
      );
    } finally {
      await daemon.stop();
    }
  }
  // Clients that vanish.
  {
    const snapshots = mkdtempSync(join(tmpdir(), 'turns-heap-'));
    const daemon = await startDaemon(httpAdapter, { TURNS_ECHO_DELAY_MS: '600000', NODE_OPTIONS: snapshotFlags(snapshots) });
    try {
      const { sessionId } = await json(daemon.url, '/session', post({ sessionScope: 'thread' }));
      const { promptId } = await json(daemon.url, `/session/${sessionId}/prompt`, post({ prompt: [{ type: 'text', text: 'long' }] }));
      await sleep(500);
      const urls = Array.from({ length: WAITERS }, () => `${daemon.url}/session/${sessionId}/turns/${promptId}?waitMs=120000`);
      const gone = await vanishingClients(daemon, urls, snapshots);
      lines.push(
        `${WAITERS} waits whose clients go away, twice: held ${gone.held.join(' / ')}, waiters left ${gone.left.join(' / ')}; ${gone.line}`,
      );
    } finally {
      await daemon.stop();
      rmSync(snapshots, { recursive: true, force: true });
    }
  }
  // Requests per outcome: one client long-polls, one polls like a plain daemon's client.
  {
    const daemon = await startDaemon(httpAdapter, { TURNS_ECHO_DELAY_MS: String(PROMPT_MS) });
    try {
      const counted = (strip) => {
        let count = 0;
        const f = async (url, init) => {
          const response = await fetch(url, init);
          if (String(url).includes('/turns/')) count += 1;
          if (strip && String(url).endsWith('/capabilities')) {
            const body = await response.json();
            return new Response(JSON.stringify({ ...body, features: body.features.filter((f) => f !== 'session_turn_wait') }), {
              status: 200,
            });
          }
          return response;
        };
        return { client: new TurnsClient({ baseUrl: daemon.url, fetch: f }), count: () => count };
      };
      const longPoll = counted(false);
      const polling = counted(true);
      const a = await longPoll.client.createSession({ sessionScope: 'thread' });
      const b = await polling.client.createSession({ sessionScope: 'thread' });
      await Promise.all([longPoll.client.promptAndWait(a.sessionId, 'long-poll'), polling.client.promptAndWait(b.sessionId, 'polling')]);
      lines.push(
        `one ${PROMPT_MS / 1000} s prompt: ${longPoll.count()} request(s) with long-poll, ${polling.count()} polling with If-None-Match and Retry-After`,
      );
    } finally {
      await daemon.stop();
    }
  }
  return lines;
}

/** The same held phases against bare node:http answering the same bytes: the floor on this machine for this client. */
async function baseline() {
  const urls = (url) => Array.from({ length: WAITERS }, (_, i) => `${url}/hold/${i}`);
  const server = await startProcess(['bench/support/held-baseline-server.js'], { HOLD_MS: '20000' });
  let r;
  try {
    r = await heldPhase(server, urls(server.url));
  } finally {
    await server.stop();
  }
  const snapshots = mkdtempSync(join(tmpdir(), 'turns-heap-'));
  const holding = await startProcess(['bench/support/held-baseline-server.js'], {
    HOLD_MS: '600000',
    NODE_OPTIONS: snapshotFlags(snapshots),
  });
  try {
    const gone = await vanishingClients(holding, urls(holding.url), snapshots);
    return {
      r,
      lines: [
        `${WAITERS} held requests answered at once: p50 ${r.p50} ms p99 ${r.p99} ms after the answer, RSS +${r.rssGrowth.toFixed(1)} MB, CPU while waiting ${r.cpuPercent.toFixed(1)}%`,
        `${WAITERS} held requests whose clients go away, twice: left ${gone.left.join(' / ')}; ${gone.line}`,
      ],
    };
  } finally {
    await holding.stop();
    rmSync(snapshots, { recursive: true, force: true });
  }
}

console.log(clientGoneAb());
console.log('\nthe floor: bare node:http holding GETs and answering the same bytes, same client');
const floor = await baseline();
for (const line of floor.lines) console.log(`  ${line}`);
for (const adapter of (process.env.ADAPTERS ?? 'express,fastify').split(',').filter(Boolean)) {
  console.log(`\n${adapter}`);
  for (const line of await bench(adapter, floor.r)) console.log(`  ${line}`);
}
process.exit(0);

// Turn webhooks, measured (printed, never asserted): the daemon (built from
// dist/, a child process) delivering to a receiver in this process on a
// loopback port.
//   - deliveries/s: prompts settle in several sessions with 8 subscriptions
//     each, until the receiver has every delivery;
//   - terminal → receiver's first byte (p50/p99): the request's headers
//     arriving, against the turn's `endedAt` in its body (one machine clock);
//   - the poll path with 8 subscriptions on the session vs none: a settled
//     turn poll of each, alternating rounds in the same run, as a ratio;
//   - BENCH_PENDING (10,000) deliveries to a dead receiver (connection
//     refused): RSS growth and outbox size, then the time until all are
//     delivered once it is back, against the retry step they wait in.
//
//   npm run bench:webhooks
//   BENCH_SECONDS=5 BENCH_PENDING=2000 npm run bench:webhooks
import autocannon from 'autocannon';
import { readdirSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { startDaemonWithData } from './support/daemon-process.js';
import { json, post, sleep } from './support/held-requests.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const PENDING = Number(process.env.BENCH_PENDING ?? 10_000);
const SUBSCRIPTIONS = 8;
const RETRY_BASE_MS = Number(process.env.BENCH_RETRY_BASE_MS ?? 200);
const LATENCY_SAMPLES = 200;

/** A receiver that answers 204 and notes when each request's headers arrived. */
function startReceiver(port = 0) {
  const arrivals = [];
  let onArrival = () => undefined;
  const server = createServer((req, res) => {
    const receivedAt = Date.now();
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(204).end();
      arrivals.push({ receivedAt, id: req.headers['webhook-id'], body: Buffer.concat(chunks).toString() });
      onArrival();
    });
  });
  return new Promise((resolve) =>
    server.listen(port, '127.0.0.1', () =>
      resolve({
        server,
        arrivals,
        port: server.address().port,
        url: `http://127.0.0.1:${server.address().port}/hooks`,
        /** Resolves once `count` distinct deliveries arrived (bounded by `timeoutMs`). */
        until(count, timeoutMs = 600_000) {
          const distinct = () => new Set(arrivals.map((a) => a.id)).size;
          return new Promise((done, fail) => {
            const timer = setTimeout(() => fail(new Error(`only ${distinct()} of ${count} deliveries arrived`)), timeoutMs);
            const check = () => {
              if (distinct() >= count) {
                clearTimeout(timer);
                done();
              }
            };
            onArrival = check;
            check();
          });
        },
        close: () => new Promise((done) => server.close(done)),
      }),
    ),
  );
}

async function session(base, subscribeTo, count) {
  const { sessionId } = await json(base, '/session', post({ sessionScope: 'thread' }));
  for (let i = 0; i < count; i += 1) await json(base, `/session/${sessionId}/webhooks`, post({ url: subscribeTo }));
  return sessionId;
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];

/** Admits `perSession` prompts in each session, as fast as admission answers. */
async function promptAll(base, sessions, perSession) {
  await Promise.all(
    sessions.map(async (sessionId) => {
      for (let i = 0; i < perSession; i += 1) {
        await json(base, `/session/${sessionId}/prompt`, post({ prompt: [{ type: 'text', text: `job ${i}` }] }));
      }
    }),
  );
}

async function throughput() {
  const receiver = await startReceiver();
  const daemon = await startDaemonWithData('fastify', {
    TURNS_WEBHOOK_ALLOW: '127.0.0.1',
    TURNS_MAX_PENDING_PROMPTS: '10000',
  });
  try {
    const sessions = [];
    for (let i = 0; i < 8; i += 1) sessions.push(await session(daemon.url, receiver.url, SUBSCRIPTIONS));
    const perSession = 40;
    const total = sessions.length * perSession * SUBSCRIPTIONS;
    const started = Date.now();
    await promptAll(daemon.url, sessions, perSession);
    await receiver.until(total);
    const seconds = (Date.now() - started) / 1000;
    console.log(
      `deliveries: ${total} in ${seconds.toFixed(2)} s → ${Math.round(total / seconds)} deliveries/s (8 sessions × 8 subscriptions, a burst)`,
    );

    // Latency without a backlog: one prompt at a time, one subscription.
    const single = await session(daemon.url, receiver.url, 1);
    const latencies = [];
    for (let i = 0; i < LATENCY_SAMPLES; i += 1) {
      const seen = receiver.arrivals.length;
      await json(daemon.url, `/session/${single}/prompt`, post({ prompt: [{ type: 'text', text: `one ${i}` }] }));
      await receiver.until(total + i + 1);
      const arrival = receiver.arrivals.slice(seen).find((a) => JSON.parse(a.body).data.sessionId === single);
      latencies.push(arrival.receivedAt - JSON.parse(arrival.body).data.endedAt);
    }
    latencies.sort((a, b) => a - b);
    console.log(
      `terminal → receiver first byte: p50 ${percentile(latencies, 50)} ms, p99 ${percentile(latencies, 99)} ms (${LATENCY_SAMPLES} turns one at a time)`,
    );

    // The poll path: a settled turn of a session with 8 subscriptions vs one with none.
    const bare = await session(daemon.url, receiver.url, 0);
    const { promptId: barePrompt } = await json(daemon.url, `/session/${bare}/prompt`, post({ prompt: [{ type: 'text', text: 'x' }] }));
    const { promptId: subscribedPrompt } = await json(
      daemon.url,
      `/session/${sessions[0]}/prompt`,
      post({ prompt: [{ type: 'text', text: 'x' }] }),
    );
    await sleep(200);
    const urls = {
      none: `${daemon.url}/session/${bare}/turns/${barePrompt}`,
      eight: `${daemon.url}/session/${sessions[0]}/turns/${subscribedPrompt}`,
    };
    for (const url of Object.values(urls)) await json(url, '');
    const ratios = [];
    const rps = { none: [], eight: [] };
    for (let round = 0; round < ROUNDS; round += 1) {
      const order = round % 2 === 0 ? ['none', 'eight'] : ['eight', 'none'];
      const got = {};
      for (const name of order) got[name] = (await autocannon({ url: urls[name], connections: 20, duration: SECONDS })).requests.average;
      rps.none.push(got.none);
      rps.eight.push(got.eight);
      ratios.push(got.eight / got.none);
    }
    console.log(
      `poll of a settled turn: ${Math.round(median(rps.none))} req/s with no subscription, ${Math.round(median(rps.eight))} req/s with 8 → ratio ${median(ratios).toFixed(3)} (median of ${ROUNDS} alternating rounds)`,
    );
  } finally {
    await daemon.stop();
    await receiver.close();
  }
}

function outboxSize(dir) {
  let files = 0;
  let bytes = 0;
  try {
    for (const name of readdirSync(dir)) {
      files += 1;
      bytes += statSync(join(dir, name)).size;
    }
  } catch {
    // no outbox yet
  }
  return { files, bytes };
}

/** RSS growth of a daemon (a data dir of its own) over `sessions` × `perSession` prompts, with `subscribeTo` or none. */
async function promptsRss(env, sessionCount, perSession, subscribeTo) {
  const daemon = await startDaemonWithData('fastify', env);
  const sessions = [];
  for (let i = 0; i < sessionCount; i += 1) sessions.push(await session(daemon.url, subscribeTo, subscribeTo ? SUBSCRIPTIONS : 0));
  const before = (await json(daemon.url, '/debug/stats')).rssBytes;
  await promptAll(daemon.url, sessions, perSession);
  return { daemon, sessions, before };
}

async function deadReceiver() {
  // A port nothing listens on until the receiver comes back.
  const probe = await startReceiver();
  const port = probe.port;
  await probe.close();
  const daemon = await startDaemonWithData('fastify', {
    TURNS_WEBHOOK_ALLOW: '127.0.0.1',
    TURNS_MAX_PENDING_PROMPTS: '10000',
    TURNS_WEBHOOK_RETRY_BASE_MS: String(RETRY_BASE_MS),
    TURNS_WEBHOOK_MAX_ATTEMPTS: '100',
  });
  let receiver;
  try {
    const url = `http://127.0.0.1:${port}/hooks`;
    const sessions = [];
    const sessionCount = Math.max(1, Math.ceil(PENDING / SUBSCRIPTIONS / 250));
    const perSession = Math.ceil(PENDING / SUBSCRIPTIONS / sessionCount);
    // Baseline in the same run: the same prompts in a daemon with no subscription.
    const baseline = await promptsRss({ TURNS_MAX_PENDING_PROMPTS: '10000' }, sessionCount, perSession, undefined);
    await sleep(3_000);
    const baselineGrowth = (await json(baseline.daemon.url, '/debug/stats')).rssBytes - baseline.before;
    await baseline.daemon.stop();
    for (let i = 0; i < sessionCount; i += 1) sessions.push(await session(daemon.url, url, SUBSCRIPTIONS));
    const before = (await json(daemon.url, '/debug/stats')).rssBytes;
    await promptAll(daemon.url, sessions, perSession);
    const expected = sessions.length * Math.ceil(PENDING / SUBSCRIPTIONS / sessionCount) * SUBSCRIPTIONS;
    const outboxDir = join(daemon.dataDir, 'webhooks', 'outbox');
    // Events are queued as fast as the turns settle and their polls answer: wait (bounded) until all are on disk.
    for (let i = 0; i < 3_000 && outboxSize(outboxDir).files < expected; i += 1) await sleep(100);
    await sleep(3_000);
    const after = (await json(daemon.url, '/debug/stats')).rssBytes;
    const outbox = outboxSize(outboxDir);
    console.log(
      `${expected} deliveries pending to a dead receiver: RSS ${(before / 2 ** 20).toFixed(1)} → ${(after / 2 ** 20).toFixed(1)} MiB (+${((after - before) / 2 ** 20).toFixed(1)} MiB; the same prompts without subscriptions: +${(baselineGrowth / 2 ** 20).toFixed(1)} MiB), outbox ${outbox.files} files, ${(outbox.bytes / 2 ** 20).toFixed(1)} MiB`,
    );
    // The step they wait in: the latest due time the outbox names (`<at>_<id>.json`).
    const back = Date.now();
    const latestDue = Math.max(...readdirSync(outboxDir).map((name) => Number(/^(\d+)_/.exec(name)?.[1] ?? 0)));
    receiver = await startReceiver(port);
    await receiver.until(expected);
    const seconds = (Date.now() - back) / 1000;
    console.log(
      `receiver back: all ${expected} delivered in ${seconds.toFixed(1)} s; the last of them was due ${((latestDue - back) / 1000).toFixed(1)} s after it came back (one backoff step)`,
    );
  } finally {
    await daemon.stop();
    await receiver?.close();
  }
}

if (process.env.BENCH_ONLY !== 'dead') await throughput();
await deadReceiver();

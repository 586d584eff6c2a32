// Turn-status benchmarks: the daemon (built from dist/, a child process) on
// each adapter, loaded by autocannon from this process. Every figure is also
// shown as a ratio against GET /health of the same adapter in the same run,
// next to baselines measured in the same run: bare node:http, bare Express and
// bare Fastify answering the same status bytes; then 10,000 requests held on
// one running prompt per adapter. Loopback only; every case is bounded in time.
//
// Then the cost of operating it: a settled poll with metrics and request
// logging on, each alone, and with the OpenTelemetry API loaded but no SDK,
// each against a daemon of its own with all of it off (and an off/off control).
//
// A ratio is measured side by side: two daemons loaded at the same moment, on
// one core, so both run on the same machine state. This VM's speed for
// memory-bound work moves by 2× from one second to the next (the same loop
// took 44–127 ms), which no order of cases taken one after another cancels.
//
//   npm run bench                 (2 s a case, the fast ones in 8 rounds)
//   BENCH_SECONDS=10 BENCH_ROUNDS=5 npm run bench
//   BENCH_ONLY=operations npm run bench   (only the operations section)
//   BENCH_ONLY=list npm run bench   (only GET /turns?limit=20 beside the settled exact poll)
//   POLL_BASELINE_REF=<commit> npm run bench   (also: this poll path against that commit's, both on their defaults, then log off)
//   POLL_BASELINE_REF=<commit> BENCH_ONLY=baseline npm run bench   (only that)
import autocannon from 'autocannon';
import { randomUUID } from 'node:crypto';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { get } from 'node:http';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { buildRef } from './support/build-ref.js';
import { pinLoadGenerator, startDaemonWithData, startOnPort, startProcess } from './support/daemon-process.js';
import { cpuTicks, heldPhase, json, post, sleep } from './support/held-requests.js';
import { workspaceKey } from '../dist/transcript/chat-recording.service.js';
import { browserWallSettings, judgeRequest } from '../dist/daemon/browser-walls.js';
import { judgeMethod } from '../dist/daemon/request-gate.js';
import { RouteTable } from '../dist/daemon/route-table.js';
import { LineBatch } from '../dist/logging/line-batch.js';
import { pino } from 'pino';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);
// Even, so each side of a side-by-side pair starts first as often as the other.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const CONNECTIONS = 20;
const WAITERS = Number(process.env.WAITERS ?? 10_000);
const WARM_UP_SECONDS = 0.5;
const children = [];
const placement = pinLoadGenerator();

async function spawnServer(args, env = {}) {
  const server = await startProcess(args, env);
  children.push(server);
  return server;
}

/**
 * One autocannon run. With the server's `pid`, also the server's CPU time per
 * request (µs, from /proc): unlike req/s it does not move with the load
 * generator sharing the cores or with time the VM was not running.
 */
async function load(url, options = {}, pid = undefined) {
  const ticks = pid && cpuTicks(pid);
  const result = await autocannon({ url, connections: CONNECTIONS, duration: SECONDS, ...options });
  const cpuUs = pid ? ((cpuTicks(pid) - ticks) * 10_000) / Math.max(1, result.requests.total) : NaN;
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx, cpuUs };
}

/** The mean of several runs of one case (latencies: the worst p99 seen). */
function mean(list) {
  const avg = (pick) => list.reduce((sum, r) => sum + pick(r), 0) / list.length;
  return {
    rps: avg((r) => r.rps),
    cpuUs: avg((r) => r.cpuUs),
    p50: Math.round(avg((r) => r.p50)),
    p99: Math.max(...list.map((r) => r.p99)),
    non2xx: avg((r) => r.non2xx),
  };
}

const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];

/**
 * Two targets (`{ url, pid }`, on two servers) loaded at the same moment, after a
 * warm-up of both that is not counted: `[a, b]`. Pinned, the servers share one
 * core, so each has half of it and both see the same machine. `bFirst` starts
 * b's load first: callers alternate it, as started second a daemon read 1.03× its like.
 */
async function sideBySide(a, b, bFirst) {
  const both = (run) => (bFirst ? Promise.all([run(b), run(a)]).then(([rb, ra]) => [ra, rb]) : Promise.all([run(a), run(b)]));
  await both((t) => load(t.url, { ...t.options, duration: WARM_UP_SECONDS }));
  return both((t) => load(t.url, { ...t.options }, t.pid));
}

/** `list` in an order fixed by `seed` (Fisher–Yates over a small LCG): the same for a rerun, different each round. */
function shuffled(list, seed) {
  const out = [...list];
  let state = Math.imul(seed + 1, 2_654_435_761) >>> 0;
  for (let i = out.length - 1; i > 0; i -= 1) {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** A transcript of settled turns in our recorder's shape, written line by line: segments of `[turns, textBytes]`, oldest first. */
function writeTranscript(path, sessionId, segments) {
  mkdirSync(dirname(path), { recursive: true });
  const fd = openSync(path, 'w');
  let parentUuid = null;
  const add = (record) => {
    const uuid = randomUUID();
    writeSync(fd, `${JSON.stringify({ uuid, parentUuid, sessionId, timestamp: new Date(0).toISOString(), ...record })}\n`);
    parentUuid = uuid;
  };
  for (const [turns, textBytes] of segments) {
    const text = 'x'.repeat(textBytes);
    for (let i = 0; i < turns; i += 1) {
      const promptId = randomUUID();
      add({ type: 'user', promptId, message: { role: 'user', parts: [{ text: `prompt ${i} ${text}` }] } });
      add({ type: 'assistant', promptId, message: { role: 'model', parts: [{ text: `echo: prompt ${i} ${text}` }] } });
      add({
        type: 'system',
        subtype: 'turn_result',
        promptId,
        systemPayload: { promptId, state: 'completed', stopReason: 'end_turn', endedAt: i + 1, resultText: `echo: prompt ${i}` },
      });
    }
  }
  closeSync(fd);
}

/** A live session made from a transcript written beforehand (loaded, as after a restart). */
async function loadedSession(base, dataDir, segments) {
  const sessionId = randomUUID();
  writeTranscript(join(dataDir, workspaceKey(dataDir), 'chats', `${sessionId}.jsonl`), sessionId, segments);
  await json(base, `/session/${sessionId}/load`, { method: 'POST' });
  return sessionId;
}

/** More sessions than the JSONL scan keeps listings of (256): a list request on each in turn reads its transcript. */
const LIST_SESSIONS = 300;

/**
 * GET /turns?limit=20 on sessions of 20 settled turns loaded from transcripts: one listed once
 * before (its turns written back into memory, its file unchanged: no read), and a round of
 * LIST_SESSIONS never listed twice in a row, as after a restart (each request reads the file).
 */
async function listSessions(daemon, dir) {
  const held = await loadedSession(daemon.url, dir, [[20, 200]]);
  await json(daemon.url, `/session/${held}/turns?limit=20`);
  const cold = [];
  for (let i = 0; i < LIST_SESSIONS; i += 1) cold.push(await loadedSession(daemon.url, dir, [[20, 200]]));
  let next = 0;
  return {
    listMemory: { url: `${daemon.url}/session/${held}/turns?limit=20`, pid: daemon.child.pid },
    listRestart: {
      url: `${daemon.url}/session/${cold[0]}/turns?limit=20`,
      pid: daemon.child.pid,
      options: {
        requests: [{ setupRequest: (req) => ({ ...req, path: `/session/${cold[(next = (next + 1) % cold.length)]}/turns?limit=20` }) }],
      },
    },
  };
}

/** Headers Node's server writes of its own (or that differ by connection), left out of a replayed answer. */
const PER_CONNECTION = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

/**
 * A bare node:http server (a child, on the servers' core) sending the bytes the
 * daemon answered `url` with: its status, its headers (less those Node writes
 * itself) and its body. Beside a poll, a cost the daemon adds to every request shows.
 */
async function bareReplayOf(url, dir) {
  const answer = await new Promise((resolve, reject) => {
    get(url, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => {
        const headers = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2)
          if (!PER_CONNECTION.has(res.rawHeaders[i].toLowerCase())) headers.push([res.rawHeaders[i], res.rawHeaders[i + 1]]);
        resolve({ status: res.statusCode, headers, body: Buffer.concat(chunks).toString('utf8') });
      });
    }).on('error', reject);
  });
  const file = join(dir, 'poll-answer.json');
  writeFileSync(file, JSON.stringify(answer));
  const server = await spawnServer(['bench/baseline-server.js', 'replay', file]);
  return { url: `${server.url}${new URL(url).pathname}`, pid: server.child.pid, stop: server.stop };
}

/** Five settled turns read back from a transcript, the newest polled once so its answer is in memory. */
async function settledSession(base, dataDir) {
  const sessionId = await loadedSession(base, dataDir, [[5, 200]]);
  const { promptId } = await json(base, `/session/${sessionId}/turns/current`);
  await json(base, `/session/${sessionId}/turns/${promptId}`);
  return { sessionId, promptId };
}

async function benchAdapter(httpAdapter) {
  const [dataDir, twinDir, walledDir, unwalledDir] = [0, 1, 2, 3].map(() => mkdtempSync(join(tmpdir(), 'turns-bench-')));
  const env = (dir) => ({
    TURNS_DATA_DIR: dir,
    TURNS_WORKSPACES: dir,
    TURNS_HTTP_ADAPTER: httpAdapter,
    // Echo answers take 10 minutes: prompts admitted here stay live for the whole run.
    TURNS_ECHO_DELAY_MS: '600000',
    // No request log: its cost is the operations section's subject (it cost a poll more than
    // /health: side by side, a Fastify exact poll read 0.80 of /health with it, 0.88 without).
    TURNS_LOG: 'warn',
    TURNS_MAX_TRANSCRIPT_BYTES: String(512 * 1024 * 1024),
    // The listing row loads LIST_SESSIONS sessions, past the default cap of 32 live ones.
    TURNS_MAX_SESSIONS: '1000',
  });
  const started = [];
  const start = async (script, dir) => {
    const daemon = await startOnPort([script], env(dir));
    started.push(daemon);
    return daemon;
  };
  try {
    // Metrics on (the default); its log, warnings only, into /dev/null.
    const server = await start('dist/daemon/bin.js', dataDir);
    // Its twin, for /health loaded side by side with each case; for the browser walls' cost on a
    // settled poll, the same daemon without them beside one with them, loaded only in that pair:
    // beside the twins, which every pair loads, a daemon idle in between read 0.91–0.98 of its like.
    const twin = await start('dist/daemon/bin.js', twinDir);
    const walled = await start('dist/daemon/bin.js', walledDir);
    const unwalled = await start('bench/support/daemon-without-walls.js', unwalledDir);
    const base = server.url;
    const pid = server.child.pid;
    // The fast cases' sessions, made alike on both twins.
    const fastCases = async (daemon, dir) => {
      const settled = await settledSession(daemon.url, dir);
      // Live: one prompt running, one queued behind it.
      const live = await json(daemon.url, '/session', post({ sessionScope: 'thread' }));
      const prompt = (text) => json(daemon.url, `/session/${live.sessionId}/prompt`, post({ prompt: [{ type: 'text', text }] }));
      const livePrompt = (await prompt('long')).promptId;
      await prompt('next');
      // A full window (10 pages of 500 records) of small records.
      const window = await loadedSession(daemon.url, dir, [[2_000, 150]]);
      const at = (path) => ({ url: `${daemon.url}${path}`, pid: daemon.child.pid });
      return {
        window,
        ...(await listSessions(daemon, dir)),
        health: at('/health'),
        exact: at(`/session/${settled.sessionId}/turns/${settled.promptId}`),
        current: at(`/session/${settled.sessionId}/turns/current`),
        exactLive: at(`/session/${live.sessionId}/turns/${livePrompt}`),
        currentLive: at(`/session/${live.sessionId}/turns/current`),
        repeatedMiss: at(`/session/${window}/turns/${randomUUID()}`),
      };
    };
    const [mine, twins] = [await fastCases(server, dataDir), await fastCases(twin, twinDir)];
    // The floor: bare node:http sending the settled exact poll's bytes, loaded beside /health and beside the polls.
    const bare = ONLY_LIST ? undefined : await bareReplayOf(mine.exact.url, dataDir);
    const settledExact = async (daemon, dir) => {
      const { sessionId, promptId } = await settledSession(daemon.url, dir);
      return { url: `${daemon.url}/session/${sessionId}/turns/${promptId}`, pid: daemon.child.pid };
    };
    const [exactWalled, exactNoWalls] = [await settledExact(walled, walledDir), await settledExact(unwalled, unwalledDir)];
    const { window } = mine;
    // Misses: the full window above, a window alone in a ~1 MiB file, and the same window after
    // ~255 MiB of older turns (the window, not the file, sets the cost).
    const small = await loadedSession(base, dataDir, [[2_000, 50]]);
    const huge = await loadedSession(base, dataDir, [
      [2_000, 64_000],
      [2_000, 50],
    ]);
    const fresh = (sessionId) => ({
      requests: [{ setupRequest: (req) => ({ ...req, path: `/session/${sessionId}/turns/${randomUUID()}` }) }],
    });

    // Each round loads every fast case once, in an order shuffled each round, side by side
    // with /health on its twin (which twin serves which alternates by round, so neither
    // daemon's placement favours a side); the walls' pair is a walled and an unwalled daemon of
    // its own. A ratio is taken inside a pair and the median across rounds reported.
    const allPairs = {
      exact: (m, t) => [t.health, m.exact],
      current: (m, t) => [t.health, m.current],
      exactLive: (m, t) => [t.health, m.exactLive],
      currentLive: (m, t) => [t.health, m.currentLive],
      repeatedMiss: (m, t) => [t.health, m.repeatedMiss],
      exactNoWalls: () => [exactWalled, exactNoWalls],
      bareHttp: (m, t) => [t.health, bare],
      exactBare: (m) => [bare, m.exact],
      currentBare: (m) => [bare, m.current],
      listMemory: (m, t) => [t.health, m.listMemory],
      listRestart: (m, t) => [t.health, m.listRestart],
    };
    const pairs = ONLY_LIST ? { exact: allPairs.exact, listMemory: allPairs.listMemory, listRestart: allPairs.listRestart } : allPairs;
    // The twins swap every round, the start order every other round: over 4 rounds each case
    // meets each combination once (the default is 8).
    const runs = Object.fromEntries(Object.keys(pairs).map((key) => [key, []]));
    for (let round = 0; round < ROUNDS; round += 1) {
      const [m, t] = round % 2 === 0 ? [mine, twins] : [twins, mine];
      for (const key of shuffled(Object.keys(pairs), round)) {
        await sleep(300);
        runs[key].push(await sideBySide(...pairs[key](m, t), (round >> 1) % 2 === 1));
      }
    }
    // Each case's own runs; /health's are those it ran beside the polls.
    const rows = Object.fromEntries(Object.entries(runs).map(([key, list]) => [key, mean(list.map(([, r]) => r))]));
    // Pairs led by another partner than /health (the walled poll, the bare floor) leave /health's mean.
    const besideHealth = (key) => !['exactNoWalls', 'exactBare', 'currentBare'].includes(key);
    rows.health = mean(Object.entries(runs).flatMap(([key, list]) => (besideHealth(key) ? list.map(([r]) => r) : [])));
    rows.fast = ['health', ...Object.keys(pairs)];
    /** `key` ÷ what ran beside it (/health; for exactNoWalls, the walled poll): req/s, median of the rounds. */
    rows.ratio = (key) => median(runs[key].map(([a, b]) => b.rps / a.rps));
    /** What ran beside `key` costs this much of what `key` costs, in server CPU a request (1.00 = the same). */
    rows.cheaper = (key) => median(runs[key].map(([a, b]) => a.cpuUs / b.cpuUs));
    if (ONLY_LIST) return rows;
    rows.miss = await load(base, fresh(window), pid);
    rows.miss1MiB = await load(base, fresh(small), pid);
    rows.miss256MiB = await load(base, fresh(huge), pid);
    rows.waiters = await heldWaiters(httpAdapter);
    return rows;
  } finally {
    await Promise.all(started.map((daemon) => daemon.stop()));
    for (const dir of [dataDir, twinDir, walledDir, unwalledDir]) rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * 10,000 requests held (`waitMs`) on one running prompt of a daemon of their
 * own: answered p99 after its terminal transition, RSS growth and CPU while
 * they wait (the full study, with its bare node:http floor, is `npm run bench:waiters`).
 */
async function heldWaiters(httpAdapter) {
  // The prompt ends 20 s after admission: time enough to hold 10,000 on a busy machine.
  const server = await startDaemonWithData(
    httpAdapter,
    {
      TURNS_ECHO_DELAY_MS: '20000',
      TURNS_MAX_WAITERS: '20000',
      TURNS_MAX_WAIT_MS: '120000',
    },
    { pin: false },
  ); // on any core: one core for 10,000 sockets set up at once left some unheld
  try {
    const { sessionId } = await json(server.url, '/session', post({ sessionScope: 'thread' }));
    const { promptId } = await json(server.url, `/session/${sessionId}/prompt`, post({ prompt: [{ type: 'text', text: 'wait' }] }));
    const url = `${server.url}/session/${sessionId}/turns/${promptId}?waitMs=100000`;
    return await heldPhase(
      server,
      Array.from({ length: WAITERS }, () => url),
    );
  } finally {
    await server.stop();
  }
}

/**
 * A daemon (`node ...args`) on `httpAdapter` with a data directory of its own and one echo
 * prompt settled and polled once (so its answer is in memory): `at(path)` is a load target on
 * it, `exact` the settled poll's; `stop()` ends it and removes the directory.
 */
async function daemonWithSettledPrompt(args, httpAdapter, env = {}, logFile = undefined) {
  const dataDir = mkdtempSync(join(tmpdir(), 'turns-bench-'));
  const daemon = await startOnPort(
    args,
    { TURNS_DATA_DIR: dataDir, TURNS_WORKSPACES: dataDir, TURNS_HTTP_ADAPTER: httpAdapter, ...env },
    logFile?.(dataDir),
  );
  const base = daemon.url;
  const { sessionId } = await json(base, '/session', post({ sessionScope: 'thread' }));
  const { promptId } = await json(base, `/session/${sessionId}/prompt`, post({ prompt: [{ type: 'text', text: 'hello' }] }));
  await json(base, `/session/${sessionId}/turns/${promptId}?waitMs=10000`);
  await json(base, `/session/${sessionId}/turns/${promptId}`);
  const at = (path) => ({ url: `${base}${path}`, pid: daemon.child.pid });
  return {
    dataDir,
    sessionId,
    at,
    exact: at(`/session/${sessionId}/turns/${promptId}`),
    stop: async () => {
      await daemon.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Runs `node --import` this first, and the daemon sees no `@opentelemetry/api`. */
const HIDE_OPENTELEMETRY = ['--import', './bench/support/hide-opentelemetry.mjs'];

/**
 * A settled poll (in memory), each variant side by side with an `off` daemon
 * of its own (no metrics, no logs, no OpenTelemetry API): `ops` (metrics and
 * the request log at info, the defaults: a poll's line is debug), `opsEveryLine`
 * (and a JSON line for every poll, `TURNS_LOG_POLLS=true`, into a file as an
 * operator's), `otel` (the API loaded, no SDK registered), those taken apart
 * (`metrics` alone, `log` alone with every poll's line), and `control`, an `off` beside an `off`: the method's own error.
 * Each round starts a fresh pair for each variant. Ratios are medians of
 * the rounds' ratios to the partner.
 */
async function benchOperations(httpAdapter) {
  const off = { args: HIDE_OPENTELEMETRY, env: { TURNS_METRICS: 'false', TURNS_LOG: 'silent' } };
  const variants = {
    ops: { args: HIDE_OPENTELEMETRY, env: { TURNS_METRICS: 'true', TURNS_LOG: 'info' } },
    // Every poll's line too (TURNS_LOG_POLLS=true): what opting in costs.
    opsEveryLine: { args: HIDE_OPENTELEMETRY, env: { TURNS_METRICS: 'true', TURNS_LOG: 'info', TURNS_LOG_POLLS: 'true' } },
    otel: { args: [], env: { TURNS_METRICS: 'false', TURNS_LOG: 'silent', TURNS_TRACING: 'true' } },
    metrics: { args: HIDE_OPENTELEMETRY, env: { TURNS_METRICS: 'true', TURNS_LOG: 'silent' } },
    log: { args: HIDE_OPENTELEMETRY, env: { TURNS_METRICS: 'false', TURNS_LOG: 'info', TURNS_LOG_POLLS: 'true' } },
    control: off,
  };
  const start = async ({ args, env }) => {
    const server = await daemonWithSettledPrompt([...args, 'dist/daemon/bin.js'], httpAdapter, env, (dir) => join(dir, 'daemon.log'));
    return { ...server.exact, dataDir: server.dataDir, stop: server.stop };
  };
  const runs = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
  // The last round's log alone (one round of SECONDS).
  let logMiB = 0;
  // A fresh pair for each variant in each round: a pair kept for every round carries its two processes' own speeds (see benchAgainstRef).
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const name of shuffled(Object.keys(runs), round + 100)) {
      const pair = [];
      try {
        pair.push(await start(off));
        pair.push(await start(variants[name]));
        await sleep(300);
        runs[name].push(await sideBySide(pair[0], pair[1], round % 2 === 1));
        if (name === 'opsEveryLine') logMiB = statSync(join(pair[1].dataDir, 'daemon.log')).size / 2 ** 20;
      } finally {
        await Promise.all(pair.map((server) => server.stop()));
      }
    }
  }
  const ratio = (name) => median(runs[name].map(([partner, r]) => r.rps / partner.rps));
  const of = (name) => mean(runs[name].map(([, r]) => r));
  return {
    off: mean(Object.values(runs).flatMap((list) => list.map(([partner]) => partner))),
    ops: of('ops'),
    otel: of('otel'),
    opsRatio: ratio('ops'),
    opsEveryLineRatio: ratio('opsEveryLine'),
    otelRatio: ratio('otel'),
    metricsRatio: ratio('metrics'),
    logRatio: ratio('log'),
    controlRatio: ratio('control'),
    logMiB,
  };
}

/** Both sides on their own defaults (metrics on, the request log at info: routine polls at debug). */
const DEFAULTS = { TURNS_LOG: '', TURNS_LOG_POLLS: '', TURNS_METRICS: '' };
/** The A/B's cases; the "log off" variant takes the polls only, to stay short. */
const AB_CASES = ['health', 'exact', 'current', 'repeatedMiss'];
const AB_LOG_OFF_CASES = ['exact', 'current'];
const RATE_LIMITS_ON = {
  TURNS_RATE_LIMIT: 'true',
  TURNS_RATE_LIMIT_READ: '1000000000',
  TURNS_RATE_LIMIT_MUTATION: '1000000000',
  TURNS_RATE_LIMIT_PROMPT: '1000000000',
};

/**
 * This daemon against the one built from `root` (a past commit), side by side
 * on one adapter, each on `env` (by default both on their defaults): `/health`
 * and the settled exact and `current` polls, as new ÷ old req/s: the median
 * of ROUNDS rounds, each over a fresh pair of daemons (started in turn order,
 * every case of the round on the same pair). One process is not another: two
 * daemons of the same build, one pair kept for every round, read 0.89–1.13
 * of each other from one run to the next (a Fastify settled poll); with a
 * fresh pair a round the median moves by 2–3%. The spread of the rounds is
 * printed with it.
 */
const MISSING_PROMPT = randomUUID();
async function benchAgainstRef(httpAdapter, root, env = DEFAULTS, keys = AB_CASES) {
  const start = async (bin) => {
    const daemon = await daemonWithSettledPrompt([bin], httpAdapter, env);
    return {
      stop: daemon.stop,
      health: daemon.at('/health'),
      exact: daemon.exact,
      current: daemon.at(`/session/${daemon.sessionId}/turns/current`),
      // A repeated miss (404) of one unknown prompt: the transcript unchanged, the prompt ledger (if any) consulted.
      repeatedMiss: daemon.at(`/session/${daemon.sessionId}/turns/${MISSING_PROMPT}`),
    };
  };
  const rounds = Object.fromEntries(keys.map((key) => [key, []]));
  for (let round = 0; round < ROUNDS; round += 1) {
    const newFirst = round % 2 === 1;
    const bins = [join(root, 'dist/daemon/bin.js'), 'dist/daemon/bin.js'];
    const daemons = [];
    try {
      for (const bin of newFirst ? bins.reverse() : bins) daemons.push(await start(bin));
      const [old, mine] = newFirst ? [daemons[1], daemons[0]] : daemons;
      for (const key of keys) {
        await sleep(300);
        const [a, b] = await sideBySide(old[key], mine[key], newFirst);
        rounds[key].push(b.rps / a.rps);
      }
    } finally {
      await Promise.all(daemons.map((daemon) => daemon.stop()));
    }
  }
  return Object.fromEntries(
    keys.map((key) => [key, { median: median(rounds[key]), low: Math.min(...rounds[key]), high: Math.max(...rounds[key]) }]),
  );
}

/**
 * The walls' own work per request (ns), timed in this process over the
 * headers a poll carries: robust where the daemon A/B drowns in the noise of
 * a shared machine.
 */
function wallNsPerRequest() {
  const settings = browserWallSettings({ host: '127.0.0.1', allowOrigins: ['http://localhost:3000'] });
  const polls = [{ host: '127.0.0.1:4170' }, { host: '127.0.0.1:4170', origin: 'http://localhost:3000' }];
  const rounds = 2_000_000;
  let passed = 0;
  const started = process.hrtime.bigint();
  for (let i = 0; i < rounds; i += 1) if (judgeRequest('GET', polls[i & 1], settings).kind === 'pass') passed += 1;
  if (passed !== rounds) throw new Error('a poll was refused');
  return Number(process.hrtime.bigint() - started) / rounds;
}
const wallNs = wallNsPerRequest();

/** The request gate's work per poll (ns): body-limit and method check against the daemon's route table, timed the same way. */
function gateNsPerRequest() {
  const paths = [
    'health',
    'capabilities',
    'debug/stats',
    'session',
    'session/:id/load',
    'session/:id/prompt',
    'session/:id/pending-prompts',
  ];
  const more = ['session/:id/pending-prompts/:promptId', 'session/:id/cancel', 'session/:id/rewind', 'session/:id/fork', 'session/:id'];
  const turns = ['session/:id/events', 'session/:id/turns/current', 'session/:id/turns/:promptId', 'docs', 'docs/*', 'docs-json'];
  const post = new Set([
    'session',
    'session/:id/load',
    'session/:id/prompt',
    'session/:id/cancel',
    'session/:id/rewind',
    'session/:id/fork',
  ]);
  const routes = new RouteTable([...paths, ...more, ...turns].map((path) => ({ method: post.has(path) ? 'POST' : 'GET', path })));
  // Paths as the front door parsed them (the URL without its query).
  const polled = [`/session/${randomUUID()}/turns/${randomUUID()}`, `/session/${randomUUID()}/turns/current`];
  const rounds = 2_000_000;
  let passed = 0;
  const started = process.hrtime.bigint();
  for (let i = 0; i < rounds; i += 1)
    if (judgeMethod('GET', routes.allowed(polled[i & 1]), {}, 4 * 1024 * 1024).kind === 'pass') passed += 1;
  if (passed !== rounds) throw new Error('a poll was refused');
  return Number(process.hrtime.bigint() - started) / rounds;
}
const gateNs = gateNsPerRequest();

/**
 * A request log line's way out (process CPU ns a line, threadpool included): through the
 * daemon's LineBatch into pino's destination, against each line written to that destination
 * directly (4 KiB minimum write, as before the batch), in interleaved rounds, into /dev/null.
 */
async function logLineNs() {
  const line = `{"level":"info","time":${Date.now()},"pid":1,"hostname":"bench","requestId":"${randomUUID()}","method":"GET","route":"/session/:id/turns/:promptId","status":200,"durationMs":0.42,"sessionId":"${randomUUID()}","msg":"GET /session/:id/turns/:promptId 200"}\n`;
  const fd = openSync('/dev/null', 'w');
  const ways = {
    batched: () => {
      const out = pino.destination({ dest: fd, sync: false });
      const batch = new LineBatch(out);
      return { write: (l) => batch.write(l), end: () => (batch.flush(), out.flushSync()) };
    },
    direct: () => {
      const out = pino.destination({ dest: fd, sync: false, minLength: 4_096 });
      return { write: (l) => out.write(l), end: () => out.flushSync() };
    },
  };
  const lines = 100_000;
  const ns = { batched: [], direct: [] };
  for (let round = 0; round < 5; round += 1) {
    for (const [name, open] of Object.entries(ways)) {
      const way = open();
      const before = process.cpuUsage();
      for (let i = 0; i < lines; i += 1) {
        way.write(line);
        if (i % 1_000 === 999) await new Promise(setImmediate); // let the writes complete, as a serving daemon does
      }
      way.end();
      const used = process.cpuUsage(before);
      ns[name].push(((used.user + used.system) * 1_000) / lines);
    }
  }
  closeSync(fd);
  return { batched: median(ns.batched), direct: median(ns.direct) };
}
const logNs = await logLineNs();

const ONLY_OPERATIONS = process.env.BENCH_ONLY === 'operations';
const ONLY_LIST = process.env.BENCH_ONLY === 'list';
const BASELINE_REF = process.env.POLL_BASELINE_REF;

/** The poll path against POLL_BASELINE_REF's, when it is set and builds: both on their defaults, then both with the log at warn. */
async function againstRef() {
  if (!BASELINE_REF) return;
  const root = buildRef(BASELINE_REF);
  if (!root) return console.log(`\n(${BASELINE_REF} was not built: no git history for it here, or its build failed)`);
  try {
    const row = (r) =>
      Object.entries(r)
        .map(([key, { median, low, high }]) => `${key} ${median.toFixed(3)} (${low.toFixed(2)}–${high.toFixed(2)})`)
        .join(', ');
    const variants = {
      'defaults (metrics on, log at info)': [DEFAULTS, AB_CASES],
      'log off (TURNS_LOG=warn, metrics on)': [{ ...DEFAULTS, TURNS_LOG: 'warn' }, AB_LOG_OFF_CASES],
      // What the front door alone (request id, walls, gate, pipelining, routes) leaves of the old poll.
      'operations off (log warn, metrics off)': [{ ...DEFAULTS, TURNS_LOG: 'warn', TURNS_METRICS: 'false' }, AB_LOG_OFF_CASES],
      // The rate limits' cost on a poll (docs/operating.md#rate-limits): on here only (the old daemon has none), far above the load.
      'rate limits on (this one only)': [{ ...DEFAULTS, ...RATE_LIMITS_ON }, AB_LOG_OFF_CASES],
    };
    const control = 'control: this daemon beside itself';
    console.log(
      `\nthis daemon against ${BASELINE_REF}'s, side by side (new ÷ old req/s, median of ${ROUNDS} rounds of ${SECONDS} s, each on a fresh pair; lowest–highest round):`,
    );
    for (const [name, [env, keys]] of Object.entries(variants)) {
      for (const adapter of ['express', 'fastify']) {
        console.log(`  ${name.padEnd(38)} ${adapter.padEnd(8)} ${row(await benchAgainstRef(adapter, root, env, keys))}`);
      }
    }
    for (const adapter of ['express', 'fastify']) {
      console.log(`  ${control.padEnd(38)} ${adapter.padEnd(8)} ${row(await benchAgainstRef(adapter, '.', DEFAULTS, ['exact']))}`);
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
if (process.env.BENCH_ONLY === 'baseline') {
  await againstRef();
  process.exit(0);
}

const baselines = {};
const results = {};
if (!ONLY_OPERATIONS) {
  for (const kind of ONLY_LIST ? [] : ['http', 'express', 'fastify']) {
    const { url, child } = await spawnServer(['bench/baseline-server.js', kind]);
    baselines[kind] = await load(`${url}/session/s/turns/p`, {}, child.pid);
  }
  for (const adapter of ['express', 'fastify']) results[adapter] = await benchAdapter(adapter);
}
/** GET /turns?limit=20 ÷ the settled exact poll, each as measured beside /health in the same run. */
function printList() {
  const row = (rows, key) =>
    `${(rows.ratio(key) / rows.ratio('exact')).toFixed(2)}× (${Math.round(rows[key].rps)} req/s, ${rows[key].cpuUs.toFixed(0)} µs/req)`;
  console.log(
    `\nGET /session/:id/turns?limit=20, 20 settled turns, ÷ the settled exact poll (each ÷ /health beside it, median of ${ROUNDS} rounds):`,
  );
  for (const [adapter, rows] of Object.entries(results)) {
    console.log(
      `  ${adapter.padEnd(8)} in memory ${row(rows, 'listMemory')}; after a restart, read from the transcript ${row(rows, 'listRestart')}; exact ${Math.round(rows.exact.rps)} req/s`,
    );
  }
}
if (ONLY_LIST) {
  await Promise.all(children.map((server) => server.stop()));
  printList();
  process.exit(0);
}
const operations = {};
for (const adapter of ['express', 'fastify']) operations[adapter] = await benchOperations(adapter);
await Promise.all(children.map((server) => server.stop()));

/** The operations section: settled poll with metrics + request logs (together and apart), and with the OpenTelemetry API, against all off. */
function printOperations() {
  console.log(
    `
operating it — ${placement}; settled poll, ${ROUNDS} rounds of ${SECONDS} s, each variant side by side with an "off" daemon of its own (ratio = median of the rounds' ratios to it; goals: metrics+logs ≥ 0.90 on fastify, ≥ 0.95 on express; otel ≥ 0.98):`,
  );
  for (const [adapter, r] of Object.entries(operations)) {
    const row = (name) => `${String(Math.round(r[name].rps)).padStart(7)} req/s ${r[name].cpuUs.toFixed(0).padStart(4)} µs/req`;
    console.log(
      `  ${adapter.padEnd(8)} off ${row('off')} | metrics+logs ${row('ops')} ratio ${r.opsRatio.toFixed(3)} | with every poll's line ratio ${r.opsEveryLineRatio.toFixed(3)} | OTel API, no SDK ${row('otel')} ratio ${r.otelRatio.toFixed(3)} | every poll's line: ${r.logMiB.toFixed(0)} MiB into a file in one round of ${SECONDS} s`,
    );
  }
  console.log(
    `  metrics+logs taken apart, each beside its "off": ${Object.entries(operations)
      .map(
        ([adapter, r]) =>
          `${adapter} metrics alone ${r.metricsRatio.toFixed(3)}, request log alone (every poll's line) ${r.logRatio.toFixed(3)}; control (off beside off) ${r.controlRatio.toFixed(3)}`,
      )
      .join('; ')}`,
  );
  const share = (ns, adapter) => `${((ns / 1000 / operations[adapter].off.cpuUs) * 100).toFixed(1)}%`;
  console.log(
    `  a request log line's way out (in this process): batched ${logNs.batched.toFixed(0)} ns = ${share(logNs.batched, 'express')} / ${share(logNs.batched, 'fastify')} of a poll's CPU (express / fastify); a write per line ${logNs.direct.toFixed(0)} ns (${(logNs.direct / logNs.batched).toFixed(1)}×)`,
  );
}
if (ONLY_OPERATIONS) {
  printOperations();
  process.exit(0);
}

const label = {
  health: 'GET /health',
  exact: 'turns/:promptId, settled',
  current: 'turns/current, settled',
  exactLive: 'turns/:promptId, live',
  currentLive: 'turns/current, live',
  miss: 'full-window miss (404, new id each time)',
  repeatedMiss: 'repeated miss, unchanged transcript',
  exactNoWalls: 'turns/:promptId, settled, no browser walls',
  bareHttp: "bare node:http, the settled poll's bytes",
  miss1MiB: 'window miss in a 1 MiB transcript',
  miss256MiB: 'window miss in a 256 MiB transcript',
  listMemory: 'turns?limit=20, 20 settled, in memory',
  listRestart: 'turns?limit=20, 20 settled, from the transcript',
};
/** A row of one adapter: req/s, p50, p99, the ratio to /health (the median of per-round ratios for the fast cases) and CPU µs a request. */
const cell = (rows, key) => {
  const r = rows[key];
  const ratio =
    key === 'health'
      ? 1
      : key === 'exactNoWalls'
        ? rows.ratio('exact') * rows.ratio(key)
        : rows.fast.includes(key)
          ? rows.ratio(key)
          : rows.health.cpuUs / r.cpuUs; // run alone, a miss is set against /health by CPU a request
  return `${String(Math.round(r.rps)).padStart(7)} ${String(r.p50).padStart(4)} ${String(r.p99).padStart(4)} ${ratio.toFixed(2).padStart(6)} ${r.cpuUs.toFixed(0).padStart(6)}`;
};
console.log(
  `\n${cpus().length} cores (${cpus()[0].model}), ${placement}; ${CONNECTIONS} connections, ${SECONDS} s a case. The fast ones: ${ROUNDS} rounds, each side by side with GET /health on a twin daemon (each has half the core: req/s is half a lone daemon's), req/s averaged, ratio = median of the rounds' ratios (the no-walls row: through the walled poll beside it). The misses run alone: their ratio is /health's CPU a request ÷ theirs. req/s, p50 and p99 latency in ms, ratio to GET /health of the same adapter, server CPU µs per request\n`,
);
const f = results.fastify;
const e = results.express;
console.log(`${'case'.padEnd(44)}  express   p50  p99  ratio  µs/req   fastify   p50  p99  ratio  µs/req`);
for (const key of Object.keys(label)) {
  console.log(`${label[key].padEnd(44)} ${cell(results.express, key)}   ${cell(results.fastify, key)}`);
}
const held = (r) =>
  `${String(r.p99).padStart(5)} ms p99 after the terminal, RSS +${Math.round(r.rssGrowth)} MB, CPU ${r.cpuPercent.toFixed(1)}% (${r.held} held at once, ${r.answered} answered)`;
console.log(`${WAITERS.toLocaleString('en')} held waiters, one prompt: express ${held(e.waiters)}; fastify ${held(f.waiters)}`);
console.log('\nbaselines (same bytes as a settled status, same run):');
for (const [kind, r] of Object.entries(baselines))
  console.log(
    `  bare ${kind.padEnd(8)} ${String(Math.round(r.rps)).padStart(7)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms  ${r.cpuUs.toFixed(0)} µs/req`,
  );
console.log(`\nsettled exact: express ${e.ratio('exact').toFixed(2)}× /health, fastify ${f.ratio('exact').toFixed(2)}× /health`);
/** A poll ÷ bare node:http sending its bytes, side by side (req/s, median of rounds; goal on fastify: ≥ 0.50). */
const overBare = (rows) => `exact ${rows.ratio('exactBare').toFixed(2)}, current ${rows.ratio('currentBare').toFixed(2)}`;
console.log(
  `settled poll ÷ bare node:http sending the same bytes, side by side (median of ${ROUNDS} rounds): express ${overBare(e)}; fastify ${overBare(f)}`,
);
const costs = (rows) => ['exact', 'current', 'exactLive', 'currentLive'].map((key) => `${key} ${rows.cheaper(key).toFixed(2)}`).join(', ');
/** Live ÷ settled, each as measured beside /health. */
const liveRatio = (rows, live, settled) => (rows.ratio(live) / rows.ratio(settled)).toFixed(2);
console.log(`server CPU per request, /health's ÷ the case's (median of rounds; 1.00 = costs what /health costs):`);
console.log(`  express: ${costs(e)}\n  fastify: ${costs(f)}`);
console.log(
  `live / settled (each ÷ /health): express ${liveRatio(e, 'exactLive', 'exact')} (exact), ${liveRatio(e, 'currentLive', 'current')} (current); fastify ${liveRatio(f, 'exactLive', 'exact')}, ${liveRatio(f, 'currentLive', 'current')}`,
);
console.log(
  `browser walls (Origin, Host, media type), settled exact with ÷ without, side by side: express ${(1 / e.ratio('exactNoWalls')).toFixed(2)} req/s, ${(1 / e.cheaper('exactNoWalls')).toFixed(2)} CPU; fastify ${(1 / f.ratio('exactNoWalls')).toFixed(2)} req/s, ${(1 / f.cheaper('exactNoWalls')).toFixed(2)} CPU (1.00 = free)`,
);
console.log(
  `browser walls' decision: ${wallNs.toFixed(0)} ns a request = ${((wallNs / 1000 / e.exact.cpuUs) * 100).toFixed(2)}% of a settled exact poll's server CPU on express, ${((wallNs / 1000 / f.exact.cpuUs) * 100).toFixed(2)}% on fastify`,
);
console.log(
  `request gate's decision (body limit, method and route): ${gateNs.toFixed(0)} ns a request = ${((gateNs / 1000 / e.exact.cpuUs) * 100).toFixed(2)}% of a settled exact poll's server CPU on express, ${((gateNs / 1000 / f.exact.cpuUs) * 100).toFixed(2)}% on fastify`,
);
console.log(
  `miss cost 256 MiB / 1 MiB transcript (time per request): express ${(e.miss1MiB.rps / e.miss256MiB.rps).toFixed(2)}, fastify ${(f.miss1MiB.rps / f.miss256MiB.rps).toFixed(2)}`,
);
printList();
printOperations();
await againstRef();
process.exit(0);

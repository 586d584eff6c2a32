// Cluster mode, measured (printed, never asserted): redis-server and two
// daemons (built from dist/, child processes) on loopback, one Express and
// one Fastify run each.
//   - a settled turn poll served by the owner vs the same poll forwarded by
//     the other node: req/s ratio and p99;
//   - Redis commands per request on each path (INFO commandstats);
//   - failover: kill -9 the owner, then POST /session/:id/load on the other
//     node until it answers 200 (TURNS_LEASE_MS bounds it).
//
//   npm run bench:cluster            (3 s a case)
//   BENCH_SECONDS=10 LEASE_MS=5000 npm run bench:cluster
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemonProcess } from './support/daemon-process.js';
import { setTimeout as sleep } from 'node:timers/promises';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const LEASE_MS = Number(process.env.LEASE_MS ?? 3_000);
const CONNECTIONS = 20;

function freePort() {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** One RESP command on a fresh connection (the bench needs no client library for INFO). */
function redisCommand(port, ...args) {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let reply = '';
    socket.on('data', (chunk) => {
      reply += chunk;
      if (/^\$(\d+)\r\n/.test(reply) && reply.length >= Number(/^\$(\d+)/.exec(reply)[1])) socket.end();
      if (/^[+-:]/.test(reply) && reply.endsWith('\r\n')) socket.end();
    });
    socket.on('end', () => resolve(reply));
    socket.on('error', reject);
    socket.write(`*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(String(a))}\r\n${a}\r\n`).join('')}`);
  });
}

async function commandCalls(port) {
  const info = await redisCommand(port, 'INFO', 'commandstats');
  return [...info.matchAll(/cmdstat_(\w+):calls=(\d+)/g)].reduce((sum, [, , calls]) => sum + Number(calls), 0);
}

async function startRedis() {
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  for (let i = 0; i < 100; i++) {
    if ((await redisCommand(port, 'PING').catch(() => '')).startsWith('+PONG')) break;
    await sleep(50);
  }
  return { port, url: `redis://127.0.0.1:${port}`, stop: () => child.kill('SIGKILL') };
}

async function load(url) {
  const result = await autocannon({ url, connections: CONNECTIONS, duration: SECONDS });
  return { rps: result.requests.average, p99: result.latency.p99, non2xx: result.non2xx };
}

async function run(adapter) {
  const redis = await startRedis();
  const dataDir = mkdtempSync(join(tmpdir(), 'turns-cluster-bench-'));
  const env = (id) => ({
    TURNS_DATA_DIR: dataDir,
    TURNS_WORKSPACES: dataDir,
    TURNS_HTTP_ADAPTER: adapter,
    TURNS_REDIS_URL: redis.url,
    TURNS_NODE_ID: id,
    TURNS_LEASE_MS: String(LEASE_MS),
  });
  const [owner, other] = await Promise.all([startDaemonProcess(env('node-a')), startDaemonProcess(env('node-b'))]);
  try {
    const json = { 'content-type': 'application/json' };
    const { sessionId } = await (await fetch(`${owner.url}/session`, { method: 'POST', headers: json, body: '{}' })).json();
    const { promptId } = await (
      await fetch(`${owner.url}/session/${sessionId}/prompt`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ prompt: [{ type: 'text', text: 'bench' }] }),
      })
    ).json();
    await fetch(`${owner.url}/session/${sessionId}/turns/${promptId}?waitMs=5000`);
    const path = `/session/${sessionId}/turns/${promptId}`;

    await redisCommand(redis.port, 'CONFIG', 'RESETSTAT');
    const direct = await load(`${owner.url}${path}`);
    const directCalls = await commandCalls(redis.port);
    await redisCommand(redis.port, 'CONFIG', 'RESETSTAT');
    const forwarded = await load(`${other.url}${path}`);
    const forwardedCalls = await commandCalls(redis.port);
    // Lease renewals and heartbeats run on a timer whatever the load: count them over the same time, idle.
    await redisCommand(redis.port, 'CONFIG', 'RESETSTAT');
    await sleep(SECONDS * 1000);
    const idleCalls = await commandCalls(redis.port);

    const perRequest = (calls, result) => Math.max(0, calls - idleCalls) / Math.max(1, result.rps * SECONDS);
    console.log(`\n${adapter}`);
    console.log(
      `  poll served by the owner     ${direct.rps.toFixed(0).padStart(7)} req/s  p99 ${direct.p99} ms  non-2xx ${direct.non2xx}`,
    );
    console.log(
      `  poll forwarded to the owner  ${forwarded.rps.toFixed(0).padStart(7)} req/s  p99 ${forwarded.p99} ms  non-2xx ${forwarded.non2xx}`,
    );
    console.log(`  forwarded / direct           ${(forwarded.rps / direct.rps).toFixed(2)}×`);
    console.log(
      `  Redis commands per request   owner ${perRequest(directCalls, direct).toFixed(4)}, forwarded ${perRequest(forwardedCalls, forwarded).toFixed(4)} (timer-driven ${idleCalls} in ${SECONDS} s subtracted)`,
    );

    owner.child.kill('SIGKILL');
    const killedAt = Date.now();
    let attempts = 0;
    for (;;) {
      attempts++;
      const res = await fetch(`${other.url}/session/${sessionId}/load`, { method: 'POST' }).catch(() => undefined);
      if (res?.status === 200) break;
      if (Date.now() - killedAt > LEASE_MS * 3) throw new Error('no failover within three leases');
      await sleep(50);
    }
    const failoverMs = Date.now() - killedAt;
    const turn = await (await fetch(`${other.url}${path}`)).json();
    console.log(
      `  failover (kill -9 → load 200) ${failoverMs} ms with TURNS_LEASE_MS=${LEASE_MS} (${attempts} attempts); turn after failover: ${turn.state}`,
    );
  } finally {
    await Promise.all([owner.stop(), other.stop()]);
    redis.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

for (const adapter of (process.env.ADAPTERS ?? 'express,fastify').split(',')) await run(adapter);

// What a tokens file of 1,000 principals costs against one of 1 (issue 42): the same built daemon twice, each
// with a tokens file of sha256 lines, loaded in alternating rounds with an authenticated settled exact poll
// (the last principal of the file asking); req/s of each, and the ratio 1,000 ÷ 1, per adapter. Beside it, the
// token check alone in-process (ns an authenticate(), the table of 1 and of 1,000). Loopback only, a few
// seconds a row.
//   npm run build && node bench/principals.bench.js   (BENCH_SECONDS, default 3; BENCH_ROUNDS, default 2)
import autocannon from 'autocannon';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pinLoadGenerator, startOnPort } from './support/daemon-process.js';
import { json, post } from './support/held-requests.js';
import { PrincipalTable } from '../dist/daemon/principal-table.js';
import { tokenDigest } from '../dist/daemon/tokens-file.js';
import { newToken, tokensFileLine } from '../dist/daemon/token-command.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const placement = pinLoadGenerator();

/** `count` principals with new tokens: the file's text, and the token of the last one. */
function principals(count) {
  const tokens = Array.from({ length: count }, newToken);
  const text = tokens.map((token, i) => tokensFileLine(`p${i}`, token)).join('\n');
  return { text, token: tokens.at(-1), tokens };
}

/** The built daemon on `adapter` with a tokens file of `count` principals and a settled prompt to poll. */
async function start(adapter, count) {
  const dir = mkdtempSync(join(tmpdir(), 'turns-principals-'));
  const { text, token } = principals(count);
  writeFileSync(join(dir, 'tokens'), `${text}\n`);
  const daemon = await startOnPort(['dist/daemon/bin.js'], {
    TURNS_DATA_DIR: dir,
    TURNS_WORKSPACES: dir,
    TURNS_HTTP_ADAPTER: adapter,
    TURNS_TOKENS_FILE: join(dir, 'tokens'),
    TURNS_LOG: 'warn',
  });
  const headers = { authorization: `Bearer ${token}` };
  const withToken = (init = {}) => ({ ...init, headers: { ...init.headers, ...headers } });
  const { sessionId } = await json(daemon.url, '/session', withToken(post({ sessionScope: 'thread' })));
  const { promptId } = await json(daemon.url, `/session/${sessionId}/prompt`, withToken(post({ prompt: [{ type: 'text', text: 'hi' }] })));
  const settled = await json(daemon.url, `/session/${sessionId}/turns/${promptId}?waitMs=10000`, withToken());
  if (settled.state !== 'completed') throw new Error(`the prompt did not settle: ${JSON.stringify(settled)}`);
  const url = `${daemon.url}/session/${sessionId}/turns/${promptId}`;
  return {
    async rps() {
      await autocannon({ url, headers, connections: 20, duration: 0.5 });
      const result = await autocannon({ url, headers, connections: 20, duration: SECONDS });
      if (result.non2xx > 0) throw new Error(`${result.non2xx} polls failed`);
      return result.requests.average;
    },
    async stop() {
      await daemon.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** ns an authenticate() takes on a table of `count`, its last principal's token presented (median of 5 runs). */
function authenticateNs(count) {
  const { tokens } = principals(count);
  const table = new PrincipalTable(tokens.map((token, i) => ({ principal: `p${i}`, digest: tokenDigest(token), operator: false })));
  const header = `Bearer ${tokens.at(-1)}`;
  const runs = [];
  for (let run = 0; run < 5; run += 1) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < 200_000; i += 1) if (!table.authenticate(header)) throw new Error('not authenticated');
    runs.push(Number(process.hrtime.bigint() - started) / 200_000);
  }
  return runs.sort((a, b) => a - b)[2];
}

console.log(`principals, ${placement}; ${ROUNDS} rounds of ${SECONDS} s, alternating`);
const one = authenticateNs(1);
const thousand = authenticateNs(1000);
console.log(
  `token check in-process: 1 principal ${one.toFixed(0)} ns, 1,000 principals ${thousand.toFixed(0)} ns, ratio ${(thousand / one).toFixed(3)}`,
);
for (const adapter of ['express', 'fastify']) {
  const daemons = { 1: await start(adapter, 1), 1000: await start(adapter, 1000) };
  const rps = { 1: [], 1000: [] };
  try {
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const count of round % 2 ? [1000, 1] : [1, 1000]) rps[count].push(await daemons[count].rps());
    }
  } finally {
    for (const daemon of Object.values(daemons)) await daemon.stop();
  }
  const mean = (values) => values.reduce((sum, value) => sum + value, 0) / values.length;
  console.log(
    `${adapter.padEnd(7)} authenticated settled poll: 1 principal ${mean(rps[1]).toFixed(0)} req/s, 1,000 principals ${mean(rps[1000]).toFixed(0)} req/s, ratio ${(mean(rps[1000]) / mean(rps[1])).toFixed(3)}`,
  );
}

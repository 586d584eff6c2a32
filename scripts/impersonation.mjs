// The impersonation of docs/security.md#client-ids-are-capabilities, against a built daemon:
//   node scripts/impersonation.mjs <dir with dist/daemon/bin.js> [express|fastify]
// It starts that daemon under TURNS_PERMISSION_RESPONDER=designated with the ACP fixture agent (test/fixtures) in a
// temporary workspace, lets a second client attach (POST /session {}), read the originator's client id off
// `turns/current` and answer the originator's request for approval with it, then prints what it got and whether the
// tool ran (the fixture writes marker.txt only once allowed). Pass the tree of an older commit to compare.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const [tree = '.', adapter = 'express'] = process.argv.slice(2);
const fixture = join(dirname(fileURLToPath(import.meta.url)), '..', 'test', 'fixtures', 'acp-fixture-agent.mjs');
const workspace = mkdtempSync(join(tmpdir(), 'impersonation-'));
const daemon = spawn(process.execPath, [resolve(tree, 'dist/daemon/bin.js')], {
  env: {
    ...process.env,
    TURNS_PORT: '0',
    TURNS_LOG: '',
    TURNS_HTTP_ADAPTER: adapter,
    TURNS_WORKSPACES: workspace,
    TURNS_DATA_DIR: join(workspace, '.turns-data'),
    TURNS_AGENT: 'acp',
    TURNS_AGENT_COMMAND: `node ${fixture}`,
    TURNS_PERMISSION_RESPONDER: 'designated',
  },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const url = await new Promise((found, failed) => {
  createInterface({ input: daemon.stdout }).on('line', (line) => {
    const at = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(line)?.[1];
    if (at) found(at);
  });
  daemon.once('exit', (code) => failed(new Error(`daemon exited with ${code}`)));
});

const call = async (method, path, clientId, body) => {
  const headers = { 'content-type': 'application/json', ...(clientId && { 'x-qwen-client-id': clientId }) };
  const res = await fetch(url + path, { method, headers, body: body && JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : {} };
};
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
const ALLOW = { outcome: { outcome: 'selected', optionId: 'proceed_once' } };

try {
  const originator = (await call('POST', '/session', undefined, {})).body;
  const second = (await call('POST', '/session', undefined, {})).body;
  const session = `/session/${originator.sessionId}`;
  console.log(`second client attached: ${second.sessionId === originator.sessionId && second.attached}`);
  const { promptId } = (await call('POST', `${session}/prompt`, originator.clientId, { prompt: [{ type: 'text', text: 'shell now' }] }))
    .body;
  let current;
  for (let tries = 0; tries < 200 && !current?.pendingInteractions; tries += 1) {
    current = (await call('GET', `${session}/turns/current`, second.clientId)).body;
    if (!current.pendingInteractions) await sleep(50);
  }
  const seen = current.originatorClientId;
  console.log(`originatorClientId the second client reads: ${seen} (the originator's id: ${seen === originator.clientId})`);
  const route = `${session}/permission/${current.pendingInteractions[0].requestId}`;
  const itself = await call('POST', route, second.clientId, ALLOW);
  console.log(`its answer as itself: ${itself.status} ${itself.body.code ?? ''}`);
  const answer = await call('POST', route, seen, ALLOW);
  console.log(`its answer as that id: ${answer.status} ${JSON.stringify(answer.body)}`);
  // Refused: the originator ends the turn itself (it rejects), so nothing runs afterwards either.
  if (answer.status !== 200) {
    await call('POST', route, originator.clientId, {
      outcome: { outcome: 'selected', optionId: 'reject' },
    });
  }
  let turn;
  for (let tries = 0; tries < 200 && (!turn || turn.state === 'running'); tries += 1) {
    turn = (await call('GET', `${session}/turns/${promptId}`)).body;
    if (turn.state === 'running') await sleep(50);
  }
  console.log(
    `turn: ${turn.state} ${JSON.stringify(turn.resultText)}; tool ran (marker.txt): ${existsSync(join(workspace, 'marker.txt'))}`,
  );
} finally {
  daemon.kill('SIGTERM');
  await new Promise((done) => daemon.once('exit', done));
  rmSync(workspace, { recursive: true, force: true });
}

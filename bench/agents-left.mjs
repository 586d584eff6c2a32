// The newcomer's sequence (docs/operating.md#sizing): a daemon on the ACP engine, four one-shot `prompt --wait` runs
// of its command line, then the agent processes still running under the daemon.
//   node bench/agents-left.mjs [checkout] [agent command]
// The checkout must be built (dist/); the agent is the repo's fixture ACP agent unless named, e.g. 'qwen --acp'.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const checkout = resolve(process.argv[2] ?? join(here, '..'));
const agent = process.argv[3] ?? `node ${join(here, '..', 'test', 'fixtures', 'acp-fixture-agent.mjs')}`;
const bin = join(checkout, 'dist', 'daemon', 'bin.js');

function freePort() {
  return new Promise((done) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });
}

/** The processes under `root` (children, theirs, …), from /proc: pid and command line. */
function descendants(root) {
  const parents = new Map();
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
      parents.set(Number(pid), { ppid, args });
    } catch {
      // gone meanwhile
    }
  }
  const found = [];
  const walk = (pid) => {
    for (const [child, { ppid, args }] of parents) {
      if (ppid !== pid) continue;
      found.push({ pid: child, args });
      walk(child);
    }
  };
  walk(root);
  return found;
}

/** A process's resident memory, as /proc says it. */
function rssOf(pid) {
  try {
    return /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1].replace(/\d+/, (kb) => `${Math.round(kb / 1024)} MB`);
  } catch {
    return '? MB';
  }
}

const port = await freePort();
const url = `http://127.0.0.1:${port}`;
const dataDir = mkdtempSync(join(tmpdir(), 'turns-agents-'));
const env = { ...process.env, TURNS_URL: url };
const daemon = spawn(process.execPath, [bin, 'serve'], {
  env: {
    ...process.env,
    TURNS_PORT: String(port),
    TURNS_DATA_DIR: dataDir,
    TURNS_WORKSPACES: dataDir,
    TURNS_AGENT: 'acp',
    TURNS_AGENT_COMMAND: agent,
    TURNS_LOG: 'warn',
  },
  stdio: ['ignore', 'ignore', 'inherit'],
});
try {
  for (let i = 0; i < 600; i += 1) {
    if (
      await fetch(`${url}/health`).then(
        (res) => res.ok,
        () => false,
      )
    )
      break;
    await new Promise((done) => setTimeout(done, 100));
  }
  for (let i = 1; i <= 4; i += 1) {
    const out = execFileSync(process.execPath, [bin, 'prompt', `hello ${i}`, '--wait'], {
      env,
      encoding: 'utf8',
      timeout: 300_000,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    console.log(`prompt ${i}: ${out.trim()}`);
  }
  await new Promise((done) => setTimeout(done, 1_000)); // a closed session's agent is given its grace to exit
  const left = descendants(daemon.pid);
  const status = await fetch(`${url}/daemon/status`).then((res) => res.json());
  console.log(`${checkout}: after 4 one-shot prompts, ${status.sessions.live} live session(s), ${left.length} agent process(es) left`);
  for (const { pid, args } of left) console.log(`  ${pid} ${rssOf(pid)} ${args.slice(0, 120)}`);
} finally {
  daemon.kill('SIGTERM');
  await new Promise((done) => daemon.once('exit', done));
  rmSync(dataDir, { recursive: true, force: true });
}

// How long `npm start` takes until the daemon answers /health, in a checkout (default: this one).
//   node scripts/start-time.mjs [checkout] [runs]
// Each run starts `npm start` on a free loopback port with a data dir of its own, polls GET /health every 50 ms,
// prints the seconds to the first 200, and stops the daemon. Run it twice on an unchanged checkout: the first run
// may build (a fresh clone, or sources changed since the last build), the later ones show what a restart costs.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const checkout = resolve(process.argv[2] ?? '.');
const runs = Number(process.argv[3] ?? 1);

function freePort() {
  return new Promise((done, fail) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
    server.on('error', fail);
  });
}

async function once() {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'turns-start-'));
  const started = performance.now();
  const child = spawn('npm', ['start', '--silent'], {
    cwd: checkout,
    env: { ...process.env, TURNS_PORT: String(port), TURNS_DATA_DIR: dataDir, TURNS_WORKSPACES: dataDir, TURNS_LOG: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
    detached: true,
  });
  try {
    // Bounded: 10 minutes, a build on a loaded machine included.
    for (let i = 0; i < 12_000; i += 1) {
      if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}`);
      const answered = await fetch(`http://127.0.0.1:${port}/health`).then(
        (res) => res.status === 200,
        () => false,
      );
      if (answered) return (performance.now() - started) / 1_000;
      await new Promise((done) => setTimeout(done, 50));
    }
    throw new Error('the daemon never answered /health');
  } finally {
    // npm and the daemon it execs: the whole process group it leads.
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      // already gone
    }
    await new Promise((done) => (child.exitCode === null ? child.once('exit', done) : done()));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

for (let run = 1; run <= runs; run += 1) {
  const seconds = await once();
  console.log(`npm start in ${checkout}: listening after ${seconds.toFixed(2)} s (run ${run} of ${runs})`);
}

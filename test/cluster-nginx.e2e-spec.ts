import { execFile, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { compileSources } from './support/compiled.js';
import { HAS_REDIS } from './support/redis-server.js';

const HAS_NGINX = spawnSync('nginx', ['-v'], { stdio: 'ignore' }).status === 0;
const ROOT = join(__dirname, '..');

/**
 * The deploy/ demo as an operator runs it: redis-server, three daemons and
 * nginx round robin on loopback; every request goes through nginx.
 */
(HAS_REDIS && HAS_NGINX ? describe : describe.skip)('deploy/cluster-demo.sh (nginx + redis-server + 3 daemons)', () => {
  jest.setTimeout(90_000);

  it('serves one session through any daemon behind nginx: polls, a held wait and SSE all come from its owner', async () => {
    const dist = compileSources('cluster-nginx');
    const { stdout } = await promisify(execFile)(join(ROOT, 'deploy', 'cluster-demo.sh'), [], {
      env: { ...process.env, TURNS_BIN: join(dist, 'daemon', 'bin.js'), TURNS_ECHO_DELAY_MS: '600' },
      timeout: 80_000,
    });
    const owner = /session \S+ created on (node-[abc])/.exec(stdout)?.[1];
    expect(owner).toBeDefined();
    const answers = [...stdout.matchAll(/answered by (node-[abc])(?: via (node-[abc]))?/g)];
    // admitted, 3 polls, the wait, the event stream
    expect(answers).toHaveLength(6);
    for (const [, node, via] of answers) {
      expect(node).toBe(owner);
      if (via) expect(via).not.toBe(owner);
    }
    // Round robin over three daemons: some of the six requests landed elsewhere and were forwarded.
    expect(answers.some(([, , via]) => via !== undefined)).toBe(true);
    expect(stdout).toMatch(/poll \d: (queued|running)/);
    expect(stdout).toContain('wait: completed "echo: hello cluster"');
    expect(stdout).toContain('events: turn_complete');
    expect(stdout).toMatch(new RegExp(`nodes: .*${owner}=1`));
  });
});

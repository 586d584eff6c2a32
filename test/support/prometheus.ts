import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './redis-server.js';

/** True when the Debian `prometheus` package's binaries are on the PATH (`.ci/run` installs it). */
export const HAS_PROMTOOL = spawnSync('promtool', ['--version'], { stdio: 'ignore' }).status === 0;
export const HAS_PROMETHEUS = spawnSync('prometheus', ['--version'], { stdio: 'ignore' }).status === 0;

/** `promtool check metrics` on an exposition: its exit code and everything it said. */
export function promtoolCheck(exposition: string): { status: number | null; output: string } {
  const run = spawnSync('promtool', ['check', 'metrics'], { input: exposition, encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}`.trim() };
}

/** Sample lines of an exposition: `name{labels} value`. */
function samples(exposition: string): Array<{ series: string; name: string; labels: string; value: number }> {
  return exposition
    .split('\n')
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const match = /^([a-zA-Z_:][\w:]*)(\{[^}]*\})? (\S+)/.exec(line)!;
      return { series: `${match[1]}${match[2] ?? ''}`, name: match[1]!, labels: match[2] ?? '', value: Number(match[3]) };
    });
}

/** The value of one sample; `labels` must all match (others may be present). 0 when there is no such sample yet. */
export function sampleValue(exposition: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  const found = samples(exposition).filter((s) => s.name === name && wanted.every((pair) => s.labels.includes(pair)));
  return found.reduce((sum, s) => sum + s.value, 0);
}

/** Every series (name and labels) of the exposition. */
export function seriesOf(exposition: string): string[] {
  return samples(exposition).map((s) => s.series);
}

/** A private Prometheus on a free loopback port, scraping `targets` every second; stopped by its pid. */
export interface PrometheusProcess {
  url: string;
  /** An instant query of its HTTP API: the result vector. */
  query(promql: string): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>>;
  kill(): Promise<void>;
}

export async function startPrometheus(targets: string[], bearerToken?: string): Promise<PrometheusProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'turns-prometheus-'));
  const port = await freePort();
  const auth = bearerToken ? `\n    authorization:\n      credentials: ${bearerToken}` : '';
  writeFileSync(
    join(dir, 'prometheus.yml'),
    `global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n  - job_name: turns\n    static_configs:\n      - targets: [${targets.map((t) => `'${t}'`).join(', ')}]${auth}\n`,
  );
  const child = spawn(
    'prometheus',
    [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`],
    { stdio: 'ignore' },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    const ready = await fetch(`${url}/-/ready`).then(
      (res) => res.ok,
      () => false,
    );
    if (ready) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error('prometheus did not become ready within 20 s');
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    async query(promql) {
      const res = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(promql)}`);
      const body = (await res.json()) as {
        status: string;
        data: { result: Array<{ metric: Record<string, string>; value: [number, string] }> };
      };
      if (body.status !== 'success') throw new Error(`query failed: ${JSON.stringify(body)}`);
      return body.data.result;
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

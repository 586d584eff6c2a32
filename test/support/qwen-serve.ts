import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/** `qwen serve` (npm @qwen-code/qwen-code), the peer daemon, run offline for a side-by-side. */
export interface QwenServe {
  url: string;
  /** Its one workspace: a fresh directory, the cwd of its sessions. */
  workspace: string;
  /** Every line it wrote to stdout and stderr so far. */
  output: string[];
  /** Stops it by its pid (it ends its `qwen --acp` child itself) and waits for its exit. */
  stop(): Promise<void>;
}

/** The approval modes of `qwen` (`tools.approvalMode`); `auto` asks the model to classify each tool call first. */
export type QwenApprovalMode = 'plan' | 'default' | 'auto-edit' | 'auto' | 'yolo';

/**
 * Starts `<qwenBin> serve` on an ephemeral loopback port, with a private HOME
 * whose settings name the approval mode, its model at `modelBaseUrl` (an
 * OpenAI-compatible stub: see openai-stub.ts), no Web Shell; resolves once it
 * says where it listens and `/health` answers.
 */
export async function startQwenServe(
  qwenBin: string,
  modelBaseUrl: string,
  approvalMode: QwenApprovalMode = 'default',
  /** More flags of `qwen serve` (e.g. `--rate-limit`). */
  flags: string[] = [],
): Promise<QwenServe> {
  const home = mkdtempSync(join(tmpdir(), 'qwen-home-'));
  const workspace = mkdtempSync(join(tmpdir(), 'qwen-ws-'));
  mkdirSync(join(home, '.qwen'));
  writeFileSync(join(home, '.qwen', 'settings.json'), JSON.stringify({ tools: { approvalMode } }));
  const child = spawn(qwenBin, ['serve', '--port', '0', '--hostname', '127.0.0.1', '--workspace', workspace, '--no-web', ...flags], {
    cwd: workspace,
    env: { ...process.env, HOME: home, OPENAI_BASE_URL: modelBaseUrl, OPENAI_API_KEY: 'local', OPENAI_MODEL: 'stub' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const output: string[] = [];
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  const url = await new Promise<string>((resolve, reject) => {
    for (const stream of [child.stdout!, child.stderr!]) {
      createInterface({ input: stream }).on('line', (line) => {
        output.push(line);
        const listening = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(line)?.[1];
        if (listening) resolve(listening);
      });
    }
    child.once('exit', (code) => reject(new Error(`qwen serve exited early with ${code}:\n${output.join('\n')}`)));
  });
  for (let tries = 0; tries < 100; tries++) {
    if (
      await fetch(`${url}/health`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return { url, workspace, output, stop };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await stop();
  throw new Error(`qwen serve at ${url} never answered /health`);
}

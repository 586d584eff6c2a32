import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

/** A daemon run as operators run it: a child process of a compiled `bin.js`. */
export interface DaemonProcess {
  child: ChildProcess;
  url: string;
  exited: Promise<number | null>;
  /** Every line the daemon wrote to stdout so far (its log). */
  output: string[];
}

/** Starts `node <bin> ...args` with the given environment; resolves once it logs where it listens. */
export function startDaemonProcess(bin: string, env: NodeJS.ProcessEnv, args: string[] = []): Promise<DaemonProcess> {
  const child = spawn(process.execPath, [bin, ...args], {
    env: { ...process.env, TURNS_PORT: '0', TURNS_LOG: '', ...env },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const output: string[] = [];
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      output.push(line);
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(line)?.[1];
      if (url) resolve({ child, url, exited, output });
    });
    child.once('exit', (code) => reject(new Error(`daemon exited early with ${code}`)));
  });
}

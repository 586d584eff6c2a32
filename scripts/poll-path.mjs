// The files of src/ a settled exact poll passes, in the order the request
// first enters them, and src/'s line count. Runs the built daemon (dist/) in
// this process on its default settings, settles one echo prompt, warms up,
// then: precise coverage (V8's call counts, reset by each take) around one
// poll gives the functions that ran; a conditional breakpoint at the start of
// each of them, whose condition records its file and never pauses, gives the
// order of three more (a file's median place). Three polls' coverage are intersected, so a timer
// that fires during one (the log's flush) does not count.
//
//   npm run build && node scripts/poll-path.mjs [express|fastify] [--root <checkout with dist/ and src/>]
//
// The report goes to standard error; the daemon's own log (standard output) is dropped.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { get, request } from 'node:http';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const args = process.argv.slice(2);
const adapter = args.find((arg) => arg === 'express' || arg === 'fastify') ?? 'fastify';
const root = resolve(args.includes('--root') ? args[args.indexOf('--root') + 1] : '.');

if (!process.env.POLL_PATH_CHILD) {
  const run = spawnSync(process.execPath, [fileURLToPath(import.meta.url), ...args], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, POLL_PATH_CHILD: '1', TURNS_LOG: '', TURNS_METRICS: '', TURNS_LOG_POLLS: '' },
    timeout: 120_000,
  });
  process.exit(run.status ?? 1);
}

const say = (line = '') => process.stderr.write(`${line}\n`);
const dist = join(root, 'dist');
const { createApp } = await import(pathToFileURL(join(dist, 'daemon', 'create-app.js')).href);

/** One request on a fresh connection-less agent: status and parsed body. */
function call(url, method = 'GET', body = undefined) {
  return new Promise((done, fail) => {
    const req = request(url, { method, headers: body ? { 'content-type': 'application/json' } : {} }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => done({ status: res.statusCode, body: text ? JSON.parse(text) : undefined }));
    });
    req.on('error', fail);
    req.end(body ? JSON.stringify(body) : undefined);
  });
}
const pollOnce = (url) => new Promise((done, fail) => get(url, (res) => res.resume().on('end', done)).on('error', fail));
/** A poll on a kept-alive connection; once more when the server had closed it while idle (Express: after 5 s). */
const poll = (url) => pollOnce(url).catch((error) => (error.code === 'ECONNRESET' ? pollOnce(url) : Promise.reject(error)));

const dataDir = mkdtempSync(join(tmpdir(), 'poll-path-'));
const app = await createApp({
  host: '127.0.0.1',
  port: 0,
  dataDir,
  workspaces: [dataDir],
  agent: 'echo',
  httpAdapter: adapter,
  echoDelayMs: 0,
  chatRecording: true,
});
await app.listen(0, '127.0.0.1');
const base = (await app.getUrl()).replace('[::1]', '127.0.0.1');
const inspector = new Session();
inspector.connect();
try {
  const { sessionId } = (await call(`${base}/session`, 'POST', { sessionScope: 'thread' })).body;
  const { promptId } = (await call(`${base}/session/${sessionId}/prompt`, 'POST', { prompt: [{ type: 'text', text: 'hi' }] })).body;
  const settled = await call(`${base}/session/${sessionId}/turns/${promptId}?waitMs=10000`);
  if (settled.body?.state !== 'completed') throw new Error(`the prompt did not settle: ${JSON.stringify(settled.body)}`);
  const url = `${base}/session/${sessionId}/turns/${promptId}`;
  for (let i = 0; i < 500; i += 1) await poll(url);

  await inspector.post('Profiler.enable');
  await inspector.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
  const ran = [];
  for (let i = 0; i < 3; i += 1) {
    await inspector.post('Profiler.takePreciseCoverage');
    await poll(url);
    ran.push(functionsRun((await inspector.post('Profiler.takePreciseCoverage')).result));
  }
  await inspector.post('Profiler.stopPreciseCoverage');
  const functions = [...ran[0].values()].filter((fn) => ran.every((set) => set.has(fn.key)));
  const order = await firstEntered(inspector, functions, () => poll(url));
  report(order, functions);
} finally {
  inspector.disconnect();
  await app.close();
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(0);

/** Functions of dist/ that ran (count > 0): `key` → { key, url, offset, name }. */
function functionsRun(scripts) {
  const out = new Map();
  for (const { url, functions } of scripts) {
    if (!url.startsWith(pathToFileURL(dist).href)) continue;
    for (const fn of functions) {
      const [whole] = fn.ranges;
      // The script's own top level (offset 0, no name) runs once, at import.
      if (whole.count === 0 || (whole.startOffset === 0 && fn.functionName === '')) continue;
      const key = `${url}@${whole.startOffset}`;
      out.set(key, { key, url, offset: whole.startOffset, name: fn.functionName });
    }
  }
  return out;
}

/** The files in the order a request first enters them: a breakpoint that records and never pauses at each function. */
async function firstEntered(inspector, functions, once) {
  await inspector.post('Debugger.enable');
  const ids = [];
  for (const fn of functions) {
    const text = readFileSync(fileURLToPath(fn.url), 'utf8').slice(0, fn.offset);
    const lineNumber = text.split('\n').length - 1;
    const columnNumber = fn.offset - (text.lastIndexOf('\n') + 1);
    const condition = `(globalThis.__pollPath.push(${JSON.stringify(fn.url)}), false)`;
    const { breakpointId } = await inspector.post('Debugger.setBreakpointByUrl', { url: fn.url, lineNumber, columnNumber, condition });
    ids.push(breakpointId);
  }
  // Three polls: a file's place is its median place among them, so a timer or a GC callback that runs
  // a function first during one poll does not move it to the front.
  const places = new Map();
  for (let run = 0; run < 3; run += 1) {
    globalThis.__pollPath = [];
    await once();
    [...new Set(globalThis.__pollPath)].forEach((url, i) => places.set(url, [...(places.get(url) ?? []), i]));
  }
  for (const breakpointId of ids) await inspector.post('Debugger.removeBreakpoint', { breakpointId });
  await inspector.post('Debugger.disable');
  const place = (url) => {
    const list = [...places.get(url), Infinity, Infinity, Infinity].slice(0, 3).sort((a, b) => a - b);
    return list[1];
  };
  return [...places.keys()].sort((a, b) => place(a) - place(b));
}

function sourceOf(url) {
  return relative(root, fileURLToPath(url))
    .replace(/^dist\//, 'src/')
    .replace(/\.js$/, '.ts');
}

function report(order, functions) {
  const perFile = new Map();
  for (const fn of functions) perFile.set(fn.url, (perFile.get(fn.url) ?? 0) + 1);
  const unordered = [...perFile.keys()].filter((url) => !order.includes(url));
  const files = [...order, ...unordered];
  say(`settled exact poll (${adapter}, default settings): ${files.length} files of src/, in the order the request enters them`);
  files.forEach((url, i) => say(`${String(i + 1).padStart(3)}. ${sourceOf(url)}  (${perFile.get(url) ?? 0} functions)`));
  const ts = listTs(join(root, 'src'));
  const lines = (list) => list.reduce((sum, file) => sum + readFileSync(file, 'utf8').split('\n').length - 1, 0);
  const shipped = ts.filter((file) => !file.endsWith('.spec.ts'));
  const long = shipped.filter((file) => readFileSync(file, 'utf8').split('\n').length - 1 > 250);
  say();
  say(`src/: ${ts.length} .ts files, ${lines(ts)} lines; without specs ${shipped.length} files, ${lines(shipped)} lines`);
  say(`files over 250 lines (without specs): ${long.length}${long.length ? ` — ${long.map((f) => relative(root, f)).join(', ')}` : ''}`);
}

function listTs(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return listTs(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

// scratch: old (b2c4933) vs new daemon side by side on one core: node bench/tmp/oldnew.mjs <adapter> <rounds>
import autocannon from 'autocannon';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pinLoadGenerator, startOnPort } from '../support/daemon-process.js';
import { cpuTicks, json, post } from '../support/held-requests.js';
const [adapter = 'fastify', rounds = '7'] = process.argv.slice(2);
console.log(pinLoadGenerator());
async function daemon(bin) {
  const dir = mkdtempSync(join(tmpdir(), 'on-'));
  const d = await startOnPort([bin], { TURNS_DATA_DIR: dir, TURNS_WORKSPACES: dir, TURNS_HTTP_ADAPTER: adapter, TURNS_LOG: 'warn' });
  const { sessionId } = await json(d.url, '/session', post({ sessionScope: 'thread' }));
  const { promptId } = await json(d.url, `/session/${sessionId}/prompt`, post({ prompt: [{ type: 'text', text: 'hello' }] }));
  await json(d.url, `/session/${sessionId}/turns/${promptId}?waitMs=10000`);
  await json(d.url, `/session/${sessionId}/turns/${promptId}`);
  const at = (p) => ({ url: d.url + p, pid: d.child.pid });
  return { d, health: at('/health'), exact: at(`/session/${sessionId}/turns/${promptId}`), current: at(`/session/${sessionId}/turns/current`) };
}
const oldD = await daemon('/work/wt-old/dist/daemon/bin.js');
const newD = await daemon('dist/daemon/bin.js');
const load = async (t, s) => { const c = cpuTicks(t.pid); const r = await autocannon({ url: t.url, connections: 20, duration: s }); return { rps: r.requests.average, us: ((cpuTicks(t.pid) - c) * 1e4) / r.requests.total }; };
const med = (v) => [...v].sort((a, b) => a - b)[v.length >> 1];
for (const k of ['health', 'exact', 'current']) {
  const ratios = [];
  for (let r = 0; r < Number(rounds); r++) {
    const both = (s) => (r % 2 ? Promise.all([load(newD[k], s), load(oldD[k], s)]).then(([n, o]) => [o, n]) : Promise.all([load(oldD[k], s), load(newD[k], s)]));
    await both(0.5);
    const [o, n] = await both(2);
    ratios.push(n.rps / o.rps);
  }
  console.log(`${adapter} ${k}: new ÷ old req/s, median of ${rounds}: ${med(ratios).toFixed(3)} (${ratios.map((x) => x.toFixed(2)).join(' ')})`);
}
await oldD.d.stop(); await newD.d.stop(); process.exit(0);

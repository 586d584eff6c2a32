import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkRun, formatReport } from '../../chaos/checker/index.js';
import { readRun } from '../../chaos/checker/run-files.js';
import { claim, delivery, exact, pid, prompt, SECRET, SID, T0 } from './synthetic-run.js';

const CHECK = join(__dirname, '..', '..', 'chaos', 'check.js');
let root: string;

/** A run directory as the harness leaves it: meta.json, history.jsonl and one data dir shared by the nodes. */
function writeRun(name: string, transcriptLines: unknown[]): string {
  const dir = join(root, name);
  const dataDir = join(dir, 'data');
  const chats = join(dataDir, 'ws-0123456789ab', 'chats');
  mkdirSync(chats, { recursive: true });
  mkdirSync(join(dataDir, 'webhooks', 'outbox-n1'), { recursive: true });
  const nodes = ['n1', 'n2'].map((node) => ({ name: node, url: 'http://127.0.0.1:1', dataDir }));
  const meta = {
    seed: '42',
    index: 3,
    startedAt: T0,
    endedAt: T0 + 200_000,
    healedAt: T0 + 100_000,
    settleMs: 10_000,
    leaseMs: 3000,
    deadlineMs: 5000,
    windowTurns: 64,
    webhookSecret: SECRET,
    nodes,
    front: 'http://127.0.0.1:2',
    receiver: 'http://127.0.0.1:3/hook',
  };
  writeFileSync(join(dir, 'meta.json'), JSON.stringify(meta));
  const history = [
    claim(0, 'n1', 'create'),
    prompt(10, pid(1), { key: 'k1', node: 'n1' }),
    exact(500, pid(1), 'completed', { node: 'n1' }),
    delivery(600, pid(1)),
  ];
  writeFileSync(join(dir, 'history.jsonl'), `${history.map((r) => JSON.stringify(r)).join('\n')}\n{"type":"op","tor`);
  writeFileSync(join(chats, `${SID}.jsonl`), `${transcriptLines.map((r) => JSON.stringify(r)).join('\n')}\n{"uuid":"torn`);
  const ledger = [
    { v: 1, promptId: pid(1), state: 'in_flight', at: T0 + 10 },
    { v: 1, promptId: pid(1), terminal: 'completed', stopReason: 'end_turn', at: T0 + 400 },
  ];
  writeFileSync(join(chats, `${SID}.ledger.jsonl`), ledger.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const pending = {
    deliveryId: 'msg_00000000-0000-4000-8000-000000000009',
    promptId: pid(1),
    sessionId: SID,
    type: 'turn.completed',
    body: '{}',
    attempts: 2,
    nextAttemptAt: 1,
    createdAt: 1,
  };
  writeFileSync(join(dataDir, 'webhooks', 'outbox-n1', `000000000000001_${pending.deliveryId}.json`), JSON.stringify(pending));
  return dir;
}

const record = (uuid: string, parentUuid: string | null, fields: Record<string, unknown>) => ({
  uuid,
  parentUuid,
  sessionId: SID,
  timestamp: new Date(T0).toISOString(),
  ...fields,
});
const goodTurn = [
  record('a1', null, {
    type: 'user',
    promptId: pid(1),
    message: { role: 'user', parts: [{ text: 'hi' }] },
    idempotency: { key: 'k1', fingerprint: 'f', lastEventId: 1, eventEpoch: 'e', admittedAt: T0 },
  }),
  record('a2', 'a1', { type: 'assistant', promptId: pid(1), message: { role: 'model', parts: [{ text: 'echo: hi' }] } }),
  record('a3', 'a2', {
    type: 'system',
    subtype: 'turn_result',
    promptId: pid(1),
    systemPayload: { promptId: pid(1), state: 'completed', endedAt: T0 + 400 },
  }),
];

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'chaos-check-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('chaos checker: a run directory', () => {
  it('reads the history, the transcripts, ledgers and outboxes of a data dir the nodes share (once)', () => {
    const run = readRun(writeRun('read', goodTurn));
    expect(run.skippedLines).toBe(1);
    expect(run.history).toHaveLength(4);
    expect(run.data.transcripts).toHaveLength(1);
    expect(run.data.transcripts[0]!.records.map((r) => r.record.uuid)).toEqual(['a1', 'a2', 'a3']);
    expect(run.data.transcripts[0]!.unparsed).toEqual([4]);
    expect(run.data.ledgers.get(SID)!.map((r) => r.record.state ?? r.record.terminal)).toEqual(['in_flight', 'completed']);
    expect(run.data.outbox.map((r) => r.record.promptId)).toEqual([pid(1)]);
  });

  it('passes a clean run, and the CLI exits 0 with the report', () => {
    const dir = writeRun('clean', goodTurn);
    const result = checkRun(dir);
    expect(result.properties.flatMap((p) => p.violations)).toEqual([]);
    expect(result).toMatchObject({ ok: true, seed: '42', index: 3 });
    const cli = spawnSync(process.execPath, [CHECK, dir], { encoding: 'utf8' });
    expect(cli.status).toBe(0);
    expect(cli.stdout).toContain('chaos run 42-3');
    expect(cli.stdout).toMatch(/transcript-single-writer\s+0/);
  });

  it('fails a run whose transcript has a second writer: the report names the property and prints the slice; the CLI exits 1', () => {
    const dir = writeRun('forked', [...goodTurn, record('b1', 'a2', { type: 'user', promptId: pid(2) })]);
    const result = checkRun(dir);
    expect(result.ok).toBe(false);
    const chain = result.properties.find((p) => p.name === 'transcript-single-writer')!;
    expect(chain.violations).toHaveLength(1);
    const report = formatReport(result);
    expect(report).toContain('[transcript-single-writer:two-writers]');
    expect(report).toContain('"uuid":"b1"');
    const cli = spawnSync(process.execPath, [CHECK, dir, '--json'], { encoding: 'utf8' });
    expect(cli.status).toBe(1);
    expect(JSON.parse(cli.stdout).ok).toBe(false);
  });

  it('exits 2 for a directory that is not a run', () => {
    expect(spawnSync(process.execPath, [CHECK, join(root, 'missing')], { encoding: 'utf8' }).status).toBe(2);
  });
});

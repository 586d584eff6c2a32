import { Logger } from '@nestjs/common';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { OwnerWriteFence } from '../sessions/session-write-fence.js';
import type { ScriptedEngine } from '../testing/scripted-engine.js';
import { deferred, settle } from '../../test/support/deferred.js';
import { settledOf, startLedgerRuntime, text, type LedgerRuntime } from '../../test/support/ledger-runtime.js';

describe('PromptLedger (docs/ledger.md)', () => {
  let rt: LedgerRuntime;
  let sessionId: string;
  let path: string;

  beforeEach(async () => {
    rt = await startLedgerRuntime();
    ({ sessionId } = await rt.sessions.create({ sessionScope: 'thread' }));
    path = rt.ledger.pathOf(sessionId)!;
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await rt.module.close();
  });

  async function lines(id = sessionId): Promise<unknown[]> {
    await rt.ledger.flush(id);
    const file = rt.ledger.pathOf(id) ?? path;
    if (!existsSync(file)) return [];
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
  }

  const inFlight = (promptId: string) => expect.objectContaining({ v: 1, promptId, state: 'in_flight', at: expect.any(Number) });

  it('lives beside the transcript, mode 0600: in_flight at admission, a terminal at publication', async () => {
    expect(path).toBe(rt.recorder.pathOf(sessionId)!.replace(/\.jsonl$/, '.ledger.jsonl'));
    const { promptId: first } = rt.bridge.admit(sessionId, text('one'));
    expect(await lines()).toEqual([{ v: 1, promptId: first, state: 'in_flight', at: expect.any(Number) }]);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    (await rt.engine.nextTurn()).finish();
    await settledOf(rt.bridge, () => first);
    await rt.recorder.flush(sessionId);
    const lastUuid = rt.recorder.lastUuidOf(sessionId);
    const { promptId: second } = rt.bridge.admit(sessionId, text('two'));
    expect(await lines()).toEqual([
      inFlight(first),
      { v: 1, promptId: first, terminal: 'completed', stopReason: 'end_turn', at: expect.any(Number) },
      { v: 1, promptId: second, state: 'in_flight', tailUuid: lastUuid, at: expect.any(Number) },
    ]);
    expect(lastUuid).toEqual(expect.any(String));
  });

  /** Whether the agent received a turn (the waiter it leaves takes the next one). */
  function agentStarted(): { started: () => boolean; turn: ReturnType<ScriptedEngine['nextTurn']> } {
    let started = false;
    const turn = rt.engine.nextTurn();
    void turn.then(() => (started = true));
    return { started: () => started, turn };
  }

  it('an idle session dispatches a prompt only once its in_flight record is synced', async () => {
    const check = deferred<boolean>();
    jest.spyOn(rt.module.get(OwnerWriteFence), 'mayWrite').mockReturnValueOnce(check.promise);
    const { started, turn } = agentStarted();
    const { promptId } = rt.bridge.admit(sessionId, text('held'));
    await settle();
    expect(started()).toBe(false);
    expect(rt.bridge.getLive(sessionId, promptId)).toMatchObject({ state: 'queued' });
    check.resolve(true);
    await rt.ledger.admitted(sessionId, promptId);
    expect(rt.bridge.getLive(sessionId, promptId)).toMatchObject({ state: 'running' });
    expect((await turn).request.prompt).toEqual(text('held'));
  });

  /** The transitions the bridge emits from now on, as `kind promptId`. */
  function transitions(): string[] {
    const seen: string[] = [];
    rt.bridge.onTransition((t) => seen.push(`${t.kind} ${t.promptId}`));
    return seen;
  }

  it("an admission's record that cannot be written: 503 ledger_unavailable, a warn, and the prompt withdrawn before the agent saw it", async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    mkdirSync(path, { recursive: true }); // a directory where the ledger goes: every write fails
    const { started } = agentStarted();
    const seen = transitions();
    const { promptId } = rt.bridge.admit(sessionId, text('lost'));
    await expect(rt.ledger.admitted(sessionId, promptId)).rejects.toMatchObject({ code: 'ledger_unavailable', status: 503 });
    await rt.bridge.admissionsDecided(sessionId);
    // Withdrawn, never settled: no terminal to announce or record, and no poll answers for it.
    expect(seen).toEqual([`admitted ${promptId}`, `withdrawn ${promptId}`]);
    await expect(rt.polls.getTurn(sessionId, promptId)).rejects.toMatchObject({ code: 'prompt_not_found' });
    await settle();
    expect(started()).toBe(false);
    expect(warn).toHaveBeenCalledWith(
      expect.stringMatching(new RegExp(`prompt ${promptId} of session ${sessionId} not admitted: the ledger write failed \\(EISDIR\\)`)),
    );
  });

  it("an admission's record refused because this node was fenced: 503 session_fenced, the prompt withdrawn", async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    jest.spyOn(rt.module.get(OwnerWriteFence), 'mayWrite').mockReturnValue(false);
    const seen = transitions();
    const { started } = agentStarted();
    const { promptId } = rt.bridge.admit(sessionId, text('fenced'));
    await expect(rt.ledger.admitted(sessionId, promptId)).rejects.toMatchObject({ code: 'session_fenced', status: 503 });
    await rt.bridge.admissionsDecided(sessionId);
    expect(seen).toEqual([`admitted ${promptId}`, `withdrawn ${promptId}`]);
    await settle();
    expect(started()).toBe(false);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('not admitted: this node lost the session'));
    expect(await lines()).toEqual([]);
  });

  it('cancelled running, queued removal, deadline and a model error: each its terminal, an error its code alone', async () => {
    const running = rt.bridge.admit(sessionId, text('running')).promptId;
    const queued = rt.bridge.admit(sessionId, text('queued')).promptId;
    const turn = await rt.engine.nextTurn();
    rt.bridge.remove(sessionId, queued);
    const cancelled = settledOf(rt.bridge, () => running);
    rt.bridge.cancelRunning(sessionId);
    await cancelled;
    void turn;

    // Its record's write may be held past its deadline: the error waits for the record; it expires queued, never having run.
    const check = deferred<boolean>();
    jest.spyOn(rt.module.get(OwnerWriteFence), 'mayWrite').mockReturnValueOnce(check.promise);
    let late = '';
    const expired = settledOf(rt.bridge, () => late);
    late = rt.bridge.admit(sessionId, text('late'), undefined, 1).promptId;
    check.resolve(true);
    await expired;

    let failing = '';
    const failed = settledOf(rt.bridge, () => failing);
    failing = rt.bridge.admit(sessionId, text('fails')).promptId;
    (await rt.engine.nextTurn()).fail({ code: -32603, message: 'secret internals of the agent' });
    await failed;

    const records = await lines();
    expect(records.filter((r) => (r as { terminal?: string }).terminal)).toEqual([
      { v: 1, promptId: queued, terminal: 'cancelled', stopReason: 'cancelled', at: expect.any(Number) },
      { v: 1, promptId: running, terminal: 'cancelled', stopReason: 'cancelled', at: expect.any(Number) },
      { v: 1, promptId: late, terminal: 'error', code: 'prompt_deadline_exceeded', at: expect.any(Number) },
      { v: 1, promptId: failing, terminal: 'error', code: '-32603', at: expect.any(Number) },
    ]);
    expect(readFileSync(path, 'utf8')).not.toMatch(/secret|deadline exceeded/i);
  });

  it('close with prompts running and queued: each gets error/session_closed, and the ledger is kept', async () => {
    const ids = ['a', 'b', 'c'].map((t) => rt.bridge.admit(sessionId, text(t)).promptId);
    await rt.engine.nextTurn();
    await rt.sessions.close(sessionId);
    const records = await lines();
    expect(records).toEqual([
      ...ids.map(inFlight),
      ...ids.map((promptId) => ({ v: 1, promptId, terminal: 'error', code: 'session_closed', at: expect.any(Number) })),
    ]);
  });

  it('seals a torn last line with a newline before its next append', async () => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, '{"v":1,"promptId":"torn","sta', { mode: 0o600 });
    const { promptId } = rt.bridge.admit(sessionId, text('after a crash'));
    await rt.ledger.flush(sessionId);
    const raw = readFileSync(path, 'utf8').split('\n');
    expect(raw[0]).toBe('{"v":1,"promptId":"torn","sta');
    expect(JSON.parse(raw[1]!)).toMatchObject({ promptId, state: 'in_flight' });
    await expect(rt.ledger.recentTerminals(sessionId)).resolves.toEqual([]);
  });

  it("a failing terminal append is logged and leaves the prompt's lifecycle alone", async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    let promptId = '';
    const settled = settledOf(rt.bridge, () => promptId);
    promptId = rt.bridge.admit(sessionId, text('still fine')).promptId;
    const turn = await rt.engine.nextTurn();
    rmSync(path);
    mkdirSync(path); // the ledger's name is taken by a directory: every later append fails
    turn.say('answer');
    turn.finish();
    await settled;
    await rt.ledger.flush(sessionId);
    expect(await rt.polls.getTurn(sessionId, promptId)).toMatchObject({ state: 'completed', resultText: 'answer' });
    expect(warn).toHaveBeenCalledWith(expect.stringMatching(/^ledger append failed for session .*: Error EISDIR$/));
    expect(statSync(path).isDirectory()).toBe(true);
  });

  it('a fork starts with an empty ledger; a rewind leaves the file untouched', async () => {
    let promptId = '';
    const settled = settledOf(rt.bridge, () => promptId);
    promptId = rt.bridge.admit(sessionId, text('one')).promptId;
    (await rt.engine.nextTurn()).finish();
    await settled;
    await rt.ledger.flush(sessionId);
    const fork = await rt.sessions.fork(sessionId);
    expect(existsSync(rt.ledger.pathOf(fork.sessionId)!)).toBe(false);
    await expect(rt.ledger.recentTerminals(fork.sessionId)).resolves.toEqual([]);

    const before = readFileSync(path);
    expect((await rt.ledger.settledPrompts(sessionId)).map((t) => t.promptId)).toEqual([promptId]);
    await rt.rewinds.rewind(sessionId, promptId);
    expect(readFileSync(path)).toEqual(before);
    expect(await rt.ledger.settledPrompts(sessionId)).toEqual([]);
    // The rewound prompt left the chain: the ledger answers for it no more, as the transcript does not.
    await expect(rt.polls.getTurn(sessionId, promptId)).rejects.toMatchObject({ code: 'prompt_not_found' });
  });
});

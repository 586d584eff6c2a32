import { Logger } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { deferred } from '../../test/support/deferred.js';
import { tempDir } from '../../test/support/test-daemon.js';
import { PromptBridge, type TurnTransition } from '../bridge/prompt-bridge.js';
import { RuntimeModule } from '../runtime/runtime.module.js';
import { SessionsService } from '../sessions/sessions.service.js';
import { SessionRewindService } from '../sessions/session-rewind.service.js';
import { ScriptedEngine } from '../testing/scripted-engine.js';
import { ChatRecordingService } from '../transcript/chat-recording.service.js';
import { TurnsModule } from '../turns/turns.module.js';
import { TurnStatusService } from '../turns/turn-status.service.js';
import { PromptLedger } from './prompt-ledger.js';

const text = (t: string) => [{ type: 'text' as const, text: t }];

interface Runtime {
  module: TestingModule;
  sessions: SessionsService;
  rewinds: SessionRewindService;
  bridge: PromptBridge;
  ledger: PromptLedger;
  recorder: ChatRecordingService;
  polls: TurnStatusService;
  engine: ScriptedEngine;
  dir: string;
}

async function startRuntime(dir = tempDir(), workspace = dir): Promise<Runtime> {
  const engine = new ScriptedEngine();
  const runtime = RuntimeModule.forRoot({ workspaces: [workspace], dataDir: dir, engine: { useValue: engine }, promptDeadlineMs: 60_000 });
  const module = await Test.createTestingModule({ imports: [runtime, TurnsModule.forRoot({ imports: [runtime] })] }).compile();
  await module.init();
  return {
    module,
    sessions: module.get(SessionsService),
    rewinds: module.get(SessionRewindService),
    bridge: module.get(PromptBridge),
    ledger: module.get(PromptLedger),
    recorder: module.get(ChatRecordingService),
    polls: module.get(TurnStatusService),
    engine,
    dir,
  };
}

/** Resolves with the published terminal of `promptId`. */
function settledOf(bridge: PromptBridge, promptId: () => string): Promise<TurnTransition> {
  const seen = deferred<TurnTransition>();
  const stop = bridge.onTransition((t) => t.kind === 'settled' && t.promptId === promptId() && (stop(), seen.resolve(t)));
  return seen.promise;
}

describe('PromptLedger (SPEC §18)', () => {
  let rt: Runtime;
  let sessionId: string;
  let path: string;

  beforeEach(async () => {
    rt = await startRuntime();
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

  it('cancelled running, queued removal, deadline and a model error: each its terminal, an error its code alone', async () => {
    const running = rt.bridge.admit(sessionId, text('running')).promptId;
    const queued = rt.bridge.admit(sessionId, text('queued')).promptId;
    const turn = await rt.engine.nextTurn();
    rt.bridge.remove(sessionId, queued);
    const cancelled = settledOf(rt.bridge, () => running);
    rt.bridge.cancelRunning(sessionId);
    await cancelled;
    void turn;

    let late = '';
    const expired = settledOf(rt.bridge, () => late);
    late = rt.bridge.admit(sessionId, text('late'), undefined, 1).promptId;
    const slow = await rt.engine.nextTurn();
    await expired;
    slow.finish();

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

  it('a failing append is logged and leaves the prompt lifecycle alone', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    mkdirSync(path, { recursive: true }); // the ledger's name is taken by a directory: every append fails
    let promptId = '';
    const settled = settledOf(rt.bridge, () => promptId);
    promptId = rt.bridge.admit(sessionId, text('still fine')).promptId;
    const turn = await rt.engine.nextTurn();
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

describe('rewound prompts after the session leaves and comes back (SPEC §7, §18)', () => {
  const runtimes: Runtime[] = [];
  afterEach(async () => {
    for (const rt of runtimes.splice(0)) await rt.module.close();
  });

  /** Runs one prompt to completion; answers its id. */
  async function complete(rt: Runtime, sessionId: string, prompt: string): Promise<string> {
    let promptId = '';
    const settled = settledOf(rt.bridge, () => promptId);
    promptId = rt.bridge.admit(sessionId, text(prompt)).promptId;
    (await rt.engine.nextTurn()).finish();
    await settled;
    return promptId;
  }

  /** Three settled prompts, a rewind to the second, and one prompt after it; every write flushed. */
  async function rewoundSession(): Promise<{ rt: Runtime; sessionId: string; kept: string; rewound: string[]; after: string }> {
    const rt = await startRuntime();
    runtimes.push(rt);
    const { sessionId } = await rt.sessions.create({ sessionScope: 'thread' });
    const kept = await complete(rt, sessionId, 'one');
    const rewound = [await complete(rt, sessionId, 'two'), await complete(rt, sessionId, 'three')];
    await rt.rewinds.rewind(sessionId, rewound[0]!);
    const after = await complete(rt, sessionId, 'four');
    await rt.ledger.flush(sessionId);
    await rt.recorder.flush(sessionId);
    return { rt, sessionId, kept, rewound, after };
  }

  async function expectOnlyChainAnswered(rt: Runtime, sessionId: string, kept: string, rewound: string[], after: string): Promise<void> {
    for (const promptId of rewound) {
      await expect(rt.ledger.terminalOf(sessionId, promptId)).resolves.toBeUndefined();
      await expect(rt.polls.getTurn(sessionId, promptId)).rejects.toMatchObject({ code: 'prompt_not_found' });
    }
    expect((await rt.ledger.settledPrompts(sessionId)).map((t) => t.promptId)).toEqual([kept, after]);
    const listed = (await rt.polls.listTurns(sessionId, { limit: 50 })).turns.map((t) => ('promptId' in t ? t.promptId : undefined));
    expect(listed).toEqual(expect.arrayContaining([kept, after]));
    expect(listed).not.toEqual(expect.arrayContaining([rewound[0]]));
    expect(listed).not.toEqual(expect.arrayContaining([rewound[1]]));
    await expect(rt.ledger.terminalOf(sessionId, after)).resolves.toMatchObject({ terminal: 'completed' });
  }

  it('close, then load: the rewound prompts stay unanswered, the others still answer', async () => {
    const { rt, sessionId, kept, rewound, after } = await rewoundSession();
    await rt.sessions.close(sessionId);
    await rt.sessions.load(sessionId);
    // The load read the rewinds: the polls' ledger answers below walk no transcript.
    const walks = jest.spyOn(rt.recorder, 'rewindFacts');
    await expectOnlyChainAnswered(rt, sessionId, kept, rewound, after);
    expect(walks).not.toHaveBeenCalled();
  });

  it('a restart over the same data dir, then resume: the rewound prompts stay unanswered', async () => {
    const { rt: before, sessionId, kept, rewound, after } = await rewoundSession();
    await before.module.close();
    runtimes.splice(runtimes.indexOf(before), 1);
    const rt = await startRuntime(before.dir);
    runtimes.push(rt);
    await rt.sessions.resume(sessionId);
    await expectOnlyChainAnswered(rt, sessionId, kept, rewound, after);
  });
});

describe('reconciliation at load (SPEC §18)', () => {
  const runtimes: Runtime[] = [];
  afterEach(async () => {
    for (const rt of runtimes.splice(0)) await rt.module.close();
  });

  /**
   * A session with one completed prompt whose terminal record was lost, one
   * running and two queued, as a kill -9 leaves it: the files are copied
   * while it runs into the data dir of a fresh runtime.
   */
  async function crashed(): Promise<{ rt: Runtime; sessionId: string; done: string; running: string; queued: string[] }> {
    const before = await startRuntime();
    runtimes.push(before);
    const { sessionId } = await before.sessions.create({ sessionScope: 'thread' });
    let done = '';
    const settled = settledOf(before.bridge, () => done);
    done = before.bridge.admit(sessionId, text('done')).promptId;
    const first = await before.engine.nextTurn();
    first.say('kept');
    first.finish();
    await settled;
    const running = before.bridge.admit(sessionId, text('running')).promptId;
    const queued = [before.bridge.admit(sessionId, text('q1')).promptId, before.bridge.admit(sessionId, text('q2')).promptId];
    await before.engine.nextTurn();
    await before.ledger.flush(sessionId);
    await before.recorder.flush(sessionId);

    const dir = tempDir();
    for (const file of [before.recorder.pathOf(sessionId)!, before.ledger.pathOf(sessionId)!]) {
      const target = file.replace(before.dir, dir);
      mkdirSync(dirname(target), { recursive: true });
      copyFileSync(file, target);
    }
    const ledger = before.ledger.pathOf(sessionId)!.replace(before.dir, dir);
    // The completed prompt's terminal never reached the disk; its turn_result did.
    const kept = readFileSync(ledger, 'utf8')
      .split('\n')
      .filter((line) => !(line.includes(done) && line.includes('"terminal"')));
    writeFileSync(ledger, kept.join('\n'));
    const rt = await startRuntime(dir, before.dir);
    runtimes.push(rt);
    return { rt, sessionId, done, running, queued };
  }

  it('settles every dangling prompt once: from the transcript when it holds the result, else interrupted/daemon_lost', async () => {
    const { rt, sessionId, done, running, queued } = await crashed();
    const loaded = await rt.sessions.load(sessionId);
    const lost = (promptId: string) => ({ v: 1, promptId, terminal: 'interrupted', code: 'daemon_lost', at: expect.any(Number) });
    expect(loaded.promptTerminals).toEqual([
      { v: 1, promptId: done, terminal: 'completed', stopReason: 'reconstructed_from_transcript', at: expect.any(Number) },
      lost(running),
      ...queued.map(lost),
    ]);
    // Polls answer them: the transcript's record wins, the lost ones read error/daemon_lost.
    expect(await rt.polls.getTurn(sessionId, done)).toMatchObject({ state: 'completed', stopReason: 'end_turn', resultText: 'kept' });
    for (const promptId of [running, ...queued]) {
      expect(await rt.polls.getTurn(sessionId, promptId)).toEqual({
        sessionId,
        promptId,
        state: 'error',
        error: { code: 'daemon_lost', message: expect.any(String) },
        endedAt: expect.any(Number),
      });
    }
    // Once: a second load attaches and settles nothing more.
    const again = await rt.sessions.load(sessionId);
    expect(again.promptTerminals).toEqual(loaded.promptTerminals);
    await expect(rt.polls.getTurn(sessionId, 'never-admitted')).rejects.toMatchObject({ code: 'prompt_not_found' });
  });

  it('concurrent loads reconcile once, and a prompt admitted since the load is never taken for lost', async () => {
    const { rt, sessionId, running } = await crashed();
    const [a, b] = await Promise.all([rt.sessions.load(sessionId), rt.sessions.load(sessionId)]);
    expect(a.promptTerminals).toEqual(b.promptTerminals);
    const fresh = rt.bridge.admit(sessionId, text('new')).promptId;
    await rt.ledger.reconcileAndReadTerminals(sessionId);
    const terminals = await rt.ledger.recentTerminals(sessionId);
    expect(terminals.filter((t) => t.promptId === running)).toHaveLength(1);
    expect(terminals.map((t) => t.promptId)).not.toContain(fresh);
  });

  it('a ledger with no terminals leaves promptTerminals out of the answer', async () => {
    const rt = await startRuntime();
    runtimes.push(rt);
    const { sessionId } = await rt.sessions.create({ sessionScope: 'thread' });
    expect(await rt.sessions.load(sessionId)).not.toHaveProperty('promptTerminals');
  });
});

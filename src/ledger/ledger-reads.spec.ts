import { Test, type TestingModule } from '@nestjs/testing';
import { mkdirSync, writeFileSync, appendFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { tempDir } from '../../test/support/test-daemon.js';
import { PromptBridge } from '../bridge/prompt-bridge.js';
import { RuntimeModule } from '../runtime/runtime.module.js';
import { SessionsService } from '../sessions/sessions.service.js';
import { ScriptedEngine } from '../testing/scripted-engine.js';
import { TurnsModule } from '../turns/turns.module.js';
import { TurnStatusService } from '../turns/turn-status.service.js';
import { readLedgerTail } from './ledger-tail.js';
import { PromptLedger } from './prompt-ledger.js';

// Every read of a ledger file is counted (the real read runs).
jest.mock('./ledger-tail.js', () => {
  const actual = jest.requireActual('./ledger-tail.js');
  return { ...actual, readLedgerTail: jest.fn(actual.readLedgerTail) };
});
const reads = readLedgerTail as jest.MockedFunction<typeof readLedgerTail>;

const line = (promptId: string) => `${JSON.stringify({ v: 1, promptId, terminal: 'cancelled', stopReason: 'cancelled', at: 1 })}\n`;

/** The exact route's ledger fallback: only after a scan miss, one read shared by concurrent polls, none while the file is unchanged. */
describe('ledger reads on the poll path', () => {
  let module: TestingModule;
  let engine: ScriptedEngine;
  let polls: TurnStatusService;
  let ledger: PromptLedger;
  let sessionId: string;
  let path: string;

  beforeEach(async () => {
    const dir = tempDir();
    engine = new ScriptedEngine();
    const runtime = RuntimeModule.forRoot({ workspaces: [dir], dataDir: dir, engine: { useValue: engine }, promptDeadlineMs: 60_000 });
    module = await Test.createTestingModule({ imports: [runtime, TurnsModule.forRoot({ imports: [runtime] })] }).compile();
    await module.init();
    polls = module.get(TurnStatusService);
    ledger = module.get(PromptLedger);
    ({ sessionId } = await module.get(SessionsService).create({}));
    path = ledger.pathOf(sessionId)!;
    mkdirSync(dirname(path), { recursive: true });
    // Terminals of prompts this process never saw (a previous run's).
    writeFileSync(path, ['a', 'b', 'c', 'd', 'e'].map(line).join(''));
    reads.mockClear();
  });
  afterEach(() => module.close());

  it('concurrent polls of five missed prompts share one bounded read; a memory hit reads nothing', async () => {
    const answers = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((id) => polls.getTurn(sessionId, id)));
    expect(answers.map((a) => a.state)).toEqual(['cancelled', 'cancelled', 'cancelled', 'cancelled', 'cancelled']);
    expect(reads).toHaveBeenCalledTimes(1);
    expect(reads).toHaveBeenCalledWith(path);
    // Written back: the next polls are memory hits.
    await polls.getTurn(sessionId, 'a');
    expect(polls.peek(sessionId, 'b')).toMatchObject({ state: 'cancelled' });
    expect(reads).toHaveBeenCalledTimes(1);
  });

  it('a ledger this process has not appended to since is not read again; its next append is', async () => {
    await expect(polls.getTurn(sessionId, 'missing')).rejects.toMatchObject({ code: 'prompt_not_found' });
    await expect(polls.getTurn(sessionId, 'missing')).rejects.toMatchObject({ code: 'prompt_not_found' });
    expect(reads).toHaveBeenCalledTimes(1);
    // Written behind the ledger's back: unseen until the ledger's own next append (it is the file's one writer).
    appendFileSync(path, line('missing'));
    await expect(polls.getTurn(sessionId, 'missing')).rejects.toMatchObject({ code: 'prompt_not_found' });
    expect(reads).toHaveBeenCalledTimes(1);
    module.get(PromptBridge).admit(sessionId, [{ type: 'text', text: 'next' }]);
    await ledger.flush(sessionId);
    await expect(polls.getTurn(sessionId, 'missing')).resolves.toMatchObject({ state: 'cancelled' });
    expect(reads).toHaveBeenCalledTimes(2);
  });

  it('is not asked for a prompt the bridge holds: a deadline error stays open to the outcome the agent settles later', async () => {
    const bridge = module.get(PromptBridge);
    let promptId = '';
    const expired = new Promise<void>((resolve) => {
      const stop = bridge.onTransition((t) => t.kind === 'settled' && t.promptId === promptId && (stop(), resolve()));
    });
    // Its deadline fires once it runs (a prompt is dispatched only after its in_flight record is synced); the agent
    // goes on past the cancel.
    engine.honorAbort = false;
    let deadline!: () => void;
    const timers = jest.spyOn(global, 'setTimeout').mockImplementationOnce(((fire: () => void) => {
      deadline = fire;
      return { unref: () => undefined };
    }) as unknown as typeof setTimeout);
    promptId = bridge.admit(sessionId, [{ type: 'text', text: 'slow' }], undefined, 1).promptId;
    timers.mockRestore();
    const turn = await engine.nextTurn();
    deadline();
    await expired;
    await module.get(PromptLedger).flush(sessionId);
    expect(await polls.getTurn(sessionId, promptId)).toMatchObject({ state: 'error', error: { code: 'prompt_deadline_exceeded' } });
    const late = new Promise<void>((resolve) => {
      const stop = bridge.onTransition((t) => t.kind === 'settled_late' && (stop(), resolve()));
    });
    turn.say('done after all');
    turn.finish();
    await late;
    expect(await polls.getTurn(sessionId, promptId)).toMatchObject({ state: 'completed', resultText: 'done after all' });
    expect(reads).not.toHaveBeenCalled();
  });

  it('current is the transcript alone', async () => {
    await expect(polls.getCurrent(sessionId)).resolves.toEqual({ sessionId, state: 'idle' });
    expect(reads).not.toHaveBeenCalled();
  });
});

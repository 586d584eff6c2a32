import { Test, type TestingModule } from '@nestjs/testing';
import { mkdirSync, writeFileSync, appendFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { tempDir } from '../../test/support/test-daemon.js';
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
  let polls: TurnStatusService;
  let ledger: PromptLedger;
  let sessionId: string;
  let path: string;

  beforeEach(async () => {
    const dir = tempDir();
    const runtime = RuntimeModule.forRoot({ workspaces: [dir], dataDir: dir, engine: { useValue: new ScriptedEngine() } });
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

  it('an unchanged ledger is not read again; an append is', async () => {
    await expect(polls.getTurn(sessionId, 'missing')).rejects.toMatchObject({ code: 'prompt_not_found' });
    await expect(polls.getTurn(sessionId, 'missing')).rejects.toMatchObject({ code: 'prompt_not_found' });
    expect(reads).toHaveBeenCalledTimes(1);
    appendFileSync(path, line('missing'));
    await expect(polls.getTurn(sessionId, 'missing')).resolves.toMatchObject({ state: 'cancelled' });
    expect(reads).toHaveBeenCalledTimes(2);
  });

  it('current is the transcript alone', async () => {
    await expect(polls.getCurrent(sessionId)).resolves.toEqual({ sessionId, state: 'idle' });
    expect(reads).not.toHaveBeenCalled();
  });
});

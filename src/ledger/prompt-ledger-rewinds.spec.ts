import { settledOf, startLedgerRuntime, text, type LedgerRuntime } from '../../test/support/ledger-runtime.js';

describe('rewound prompts after the session leaves and comes back (docs/routes.md, docs/ledger.md)', () => {
  const runtimes: LedgerRuntime[] = [];
  afterEach(async () => {
    for (const rt of runtimes.splice(0)) await rt.module.close();
  });

  /** Runs one prompt to completion; answers its id. */
  async function complete(rt: LedgerRuntime, sessionId: string, prompt: string): Promise<string> {
    let promptId = '';
    const settled = settledOf(rt.bridge, () => promptId);
    promptId = rt.bridge.admit(sessionId, text(prompt)).promptId;
    (await rt.engine.nextTurn()).finish();
    await settled;
    return promptId;
  }

  /** Three settled prompts, a rewind to the second, and one prompt after it; every write flushed. */
  async function rewoundSession(): Promise<{ rt: LedgerRuntime; sessionId: string; kept: string; rewound: string[]; after: string }> {
    const rt = await startLedgerRuntime();
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

  async function expectOnlyChainAnswered(
    rt: LedgerRuntime,
    sessionId: string,
    kept: string,
    rewound: string[],
    after: string,
  ): Promise<void> {
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
    const rt = await startLedgerRuntime(before.dir);
    runtimes.push(rt);
    await rt.sessions.resume(sessionId);
    await expectOnlyChainAnswered(rt, sessionId, kept, rewound, after);
  });
});

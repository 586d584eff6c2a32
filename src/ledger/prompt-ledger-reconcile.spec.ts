import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { settledOf, startLedgerRuntime, text, type LedgerRuntime } from '../../test/support/ledger-runtime.js';
import { deferred, settle } from '../../test/support/deferred.js';
import { tempDir } from '../../test/support/test-daemon.js';

describe('reconciliation at load (docs/ledger.md)', () => {
  const runtimes: LedgerRuntime[] = [];
  afterEach(async () => {
    for (const rt of runtimes.splice(0)) await rt.module.close();
  });

  /**
   * A session with one completed prompt whose terminal record was lost, one
   * running and two queued, as a kill -9 leaves it: the files are copied
   * while it runs into the data dir of a fresh runtime.
   */
  async function crashed(): Promise<{ rt: LedgerRuntime; sessionId: string; done: string; running: string; queued: string[] }> {
    const before = await startLedgerRuntime();
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
    const rt = await startLedgerRuntime(dir, before.dir);
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

  it('the session is live only once its load reconciled it: no request finds a prompt left in flight unknown (chaos SEED=9405)', async () => {
    const { rt, sessionId, running } = await crashed();
    const scan = (rt.ledger as unknown as { transcript: { findTurnResult: (...args: unknown[]) => Promise<unknown> } }).transcript;
    const find = scan.findTurnResult.bind(scan);
    const held = deferred<void>();
    const reached = deferred<void>();
    const spy = jest.spyOn(scan, 'findTurnResult').mockImplementation(async (...args: unknown[]) => {
      reached.resolve();
      await held.promise;
      return find(...args);
    });
    const loading = rt.sessions.load(sessionId);
    try {
      await reached.promise;
      // Reconciling: not live, so the routes answer 404 session_not_found (load it), never prompt_not_found for a prompt
      // the old owner acknowledged; a second load waits for the same start.
      expect(rt.bridge.hasSession(sessionId)).toBe(false);
      let second = false;
      const again = rt.sessions.load(sessionId).then((answer) => ((second = true), answer));
      await settle();
      expect(second).toBe(false);
      held.resolve();
      const [first, other] = await Promise.all([loading, again]);
      expect(other.promptTerminals).toEqual(first.promptTerminals);
      expect(rt.bridge.hasSession(sessionId)).toBe(true);
      expect(await rt.polls.getTurn(sessionId, running)).toMatchObject({ state: 'error', error: { code: 'daemon_lost' } });
    } finally {
      held.resolve();
      // Settled before the runtime closes, whatever failed above.
      await loading.catch(() => undefined);
      spy.mockRestore();
    }
  });

  it('a ledger with no terminals leaves promptTerminals out of the answer', async () => {
    const rt = await startLedgerRuntime();
    runtimes.push(rt);
    const { sessionId } = await rt.sessions.create({ sessionScope: 'thread' });
    expect(await rt.sessions.load(sessionId)).not.toHaveProperty('promptTerminals');
  });
});

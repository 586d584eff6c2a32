import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deferred, settle } from '../../test/support/deferred.js';
import { startLedgerRuntime, type LedgerRuntime } from '../../test/support/ledger-runtime.js';
import { tempDir } from '../../test/support/test-daemon.js';
import { idempotencyScope } from '../idempotency/idempotency-key.js';
import { IdempotencyStore } from '../idempotency/idempotency-store.js';
import { Logger } from '@nestjs/common';
import { LedgerFiles } from '../ledger/ledger-files.js';
import type { LedgerRecord } from '../ledger/ledger-record.js';
import { PromptLedger } from '../ledger/prompt-ledger.js';
import { chatsDir } from '../transcript/transcript-paths.js';
import { LostPromptSweep } from './lost-prompt-sweep.js';
import { SessionRegistry } from './session-registry.js';

const SESSION = '7d1f6a0e-3b2c-4e5f-8a9b-0c1d2e3f4a5b';
const RUNNING = 'a1b2c3d4-0000-4000-8000-000000000001';
const QUEUED = 'a1b2c3d4-0000-4000-8000-000000000002';

/**
 * Issue 36: the prompts a dead process left in flight are settled (and
 * announced) even when nobody loads their session again, and the key of a
 * prompt still queued at the crash replays after a load.
 */
describe('LostPromptSweep and the keys of a crashed session', () => {
  let dir: string;
  let rt: LedgerRuntime | undefined;

  /** What a kill -9 leaves: an empty transcript, and a ledger with a running prompt and a keyed queued one. */
  function crashed(): string {
    dir = tempDir();
    const chats = chatsDir(dir, dir);
    mkdirSync(chats, { recursive: true });
    writeFileSync(join(chats, `${SESSION}.jsonl`), '');
    const idempotency = { key: 'job-7', fingerprint: 'f'.repeat(64), lastEventId: 3, eventEpoch: 'epoch-1', admittedAt: Date.now() };
    const ledger = join(chats, `${SESSION}.ledger.jsonl`);
    const lines = [
      { v: 1, promptId: RUNNING, state: 'in_flight', at: Date.now() },
      { v: 1, promptId: QUEUED, state: 'in_flight', at: Date.now(), idempotency },
    ];
    writeFileSync(ledger, lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
    return ledger;
  }
  const terminals = (ledger: string) =>
    readFileSync(ledger, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line))
      .filter((record) => record.terminal);

  afterEach(async () => {
    jest.useRealTimers();
    jest.restoreAllMocks();
    await rt?.module.close();
    rt = undefined;
  });

  it('settles at start, without a load, every prompt a crash left in flight; the session does not become live', async () => {
    const ledger = crashed();
    rt = await startLedgerRuntime(dir);
    // The pass begun at start, or (were it done) one that finds nothing left.
    await rt.module.get(LostPromptSweep).sweep();
    expect(terminals(ledger).map((record) => [record.promptId, record.terminal, record.code])).toEqual([
      [RUNNING, 'interrupted', 'daemon_lost'],
      [QUEUED, 'interrupted', 'daemon_lost'],
    ]);
    expect(rt.module.get(SessionRegistry).get(SESSION)).toBeUndefined();
    expect(rt.recorder.pathOf(SESSION)).toBeUndefined();
    await expect(rt.module.get(LostPromptSweep).sweep()).resolves.toBe(0);
  });

  it('a load that comes while the sweep holds the session waits for it, then starts the session as usual', async () => {
    const ledger = crashed();
    const reached = deferred<void>();
    const gate = deferred<void>();
    const reconcile = PromptLedger.prototype.reconcileAndReadTerminals;
    jest.spyOn(PromptLedger.prototype, 'reconcileAndReadTerminals').mockImplementationOnce(async function (this: PromptLedger, id) {
      reached.resolve();
      await gate.promise;
      return reconcile.call(this, id);
    });
    rt = await startLedgerRuntime(dir);
    await reached.promise;
    let loaded = false;
    const load = rt.sessions.load(SESSION).then((answer) => ((loaded = true), answer));
    await settle(20);
    expect(loaded).toBe(false);
    gate.resolve();
    const answer = await load;
    expect(answer.promptTerminals?.map((record) => record.promptId)).toEqual([RUNNING, QUEUED]);
    expect(terminals(ledger)).toHaveLength(2); // settled once
    // Live, and recording: the sweep's detach came before the load's start.
    expect(rt.module.get(SessionRegistry).get(SESSION)).toBeDefined();
    expect(rt.recorder.pathOf(SESSION)).toEqual(expect.any(String));
  });

  it('a load gives back the key of a prompt still queued at the crash, from its in_flight record', async () => {
    crashed();
    rt = await startLedgerRuntime(dir);
    await rt.sessions.load(SESSION);
    const store = rt.module.get(IdempotencyStore);
    expect(store.begin(idempotencyScope.prompt(SESSION, undefined, 'job-7'), 'f'.repeat(64))).toEqual({
      status: 202,
      body: { promptId: QUEUED, lastEventId: 3, eventEpoch: 'epoch-1' },
    });
  });

  it('a single daemon passes again a minute after a pass whose writes failed (warned), until a pass finds nothing', async () => {
    const ledger = crashed();
    let failing = true;
    const append = LedgerFiles.prototype.append;
    jest.spyOn(LedgerFiles.prototype, 'append').mockImplementation(function (this: LedgerFiles, id: string, record: LedgerRecord) {
      if (!failing || !('terminal' in record)) return append.call(this, id, record);
      const refused = Promise.reject(Object.assign(new Error('no space'), { name: 'ENOSPC' }));
      refused.catch(() => undefined);
      return refused;
    });
    const warned = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    // Only the timers are controlled: the passes' file reads run as usual.
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask', 'performance', 'hrtime', 'Date'] });
    // No idle reaper: its timer is not the sweep's, which this counts.
    rt = await startLedgerRuntime(dir, dir, { sessionIdleTimeoutMs: 0 });
    const sweep = rt.module.get(LostPromptSweep);
    await sweep.sweep(); // the pass begun at start
    await settle();
    expect(terminals(ledger)).toEqual([]);
    expect(jest.getTimerCount()).toBe(1);

    failing = false;
    jest.advanceTimersByTime(60_000);
    await expect(sweep.sweep()).resolves.toBe(1); // the pass the timer began
    expect(terminals(ledger)).toHaveLength(2);
    expect(warned).toHaveBeenCalledWith(`session ${SESSION} still has lost prompts in flight: settling again`);
    await settle();
    jest.advanceTimersByTime(60_000);
    await expect(sweep.sweep()).resolves.toBe(0);
    await settle();
    expect(jest.getTimerCount()).toBe(0);
  });
});

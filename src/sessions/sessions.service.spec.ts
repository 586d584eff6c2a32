import { Logger } from '@nestjs/common';
import { deferred, settle } from '../../test/support/deferred.js';
import { startLedgerRuntime, text as ledgerText, type LedgerRuntime } from '../../test/support/ledger-runtime.js';
import { startSessionsRuntime, type SessionsRuntime } from '../../test/support/sessions-runtime.js';
import { idempotencyScope } from '../idempotency/idempotency-key.js';
import { IdempotencyStore } from '../idempotency/idempotency-store.js';
import { SessionOwnerFiles } from './session-owner-files.js';
import { SessionRegistry } from './session-registry.js';

const text = (t: string) => [{ type: 'text', text: t }];

/**
 * One teardown for close, lease loss and shutdown (SessionTeardown.end): the
 * steps are logged as they happen and held with controlled promises.
 */
describe('SessionsService: the one teardown of a session', () => {
  let rt: SessionsRuntime;
  let shutDown = false;
  let log: string[];
  const held: Array<() => void> = [];

  beforeEach(async () => {
    rt = await startSessionsRuntime();
    shutDown = false;
    log = [];
  });
  afterEach(async () => {
    for (const release of held.splice(0)) release();
    jest.restoreAllMocks();
    if (!shutDown) await rt.close();
  });

  /** Holds every transcript flush of a teardown until the returned function is called. */
  function holdDetach(): () => void {
    const flushed = deferred<void>();
    held.push(() => flushed.resolve());
    const detach = rt.recorder.detach.bind(rt.recorder);
    jest.spyOn(rt.recorder, 'detach').mockImplementation(async (id) => (await flushed.promise, detach(id)));
    return () => flushed.resolve();
  }

  /** A live session with a running prompt, every teardown step logged. */
  async function watchedSession(): Promise<string> {
    const { sessionId } = await rt.sessions.create({ sessionScope: 'thread' });
    rt.bridge.admit(sessionId, text('running'));
    await rt.engine.nextTurn();
    rt.bridge.onTransition((t) => t.kind === 'settled' && log.push(`prompt ${t.status.state}`));
    rt.events.subscribe(sessionId).subscribe({ complete: () => log.push('stream ended') });
    const session = rt.sessions.require(sessionId);
    const closeEngine = session.close.bind(session);
    jest.spyOn(session, 'close').mockImplementation(async () => (await closeEngine(), void log.push('engine stopped')));
    const { recorder, ownership } = rt;
    const [detach, abandon] = [recorder.detach, recorder.abandon].map((m) => m.bind(recorder));
    const release = ownership.release.bind(ownership);
    jest.spyOn(recorder, 'detach').mockImplementation(async (id) => (await detach(id), void log.push('transcript flushed')));
    jest.spyOn(recorder, 'abandon').mockImplementation((id) => (abandon(id), void log.push('transcript abandoned')));
    jest.spyOn(ownership, 'release').mockImplementation(async (id) => (await release(id), void log.push('released')));
    return sessionId;
  }

  it.each([
    {
      end: 'close',
      run: (rt: SessionsRuntime, id: string) => rt.sessions.close(id),
      steps: ['prompt error', 'stream ended', 'engine stopped', 'transcript flushed', 'released'],
    },
    {
      end: 'lease loss',
      run: async (rt: SessionsRuntime, id: string) => (rt.ownership.takeAway(id), settle()),
      steps: ['transcript abandoned', 'prompt error', 'stream ended', 'engine stopped'],
    },
    {
      // The event bus ends every stream before the application shuts down (beforeApplicationShutdown).
      end: 'shutdown',
      run: (rt: SessionsRuntime) => ((shutDown = true), rt.close()),
      steps: ['stream ended', 'prompt error', 'engine stopped', 'transcript flushed', 'released'],
    },
  ])('$end: registry, bridge, streams, engine, transcript, ownership — in that order', async ({ run, steps }) => {
    const sessionId = await watchedSession();
    await run(rt, sessionId);
    expect(log).toEqual(steps);
    expect(() => rt.sessions.require(sessionId)).toThrow(expect.objectContaining({ code: 'session_not_found' }));
    expect(rt.bridge.pendingPrompts(sessionId)).toEqual([]);
  });

  it('a create by another principal of a session id already starting is refused, not handed that session', async () => {
    const sessionId = '6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f';
    const aliceStarting = deferred<void>();
    const written = deferred<void>();
    const write = SessionOwnerFiles.prototype.write;
    jest.spyOn(SessionOwnerFiles.prototype, 'write').mockImplementation(async function (this: SessionOwnerFiles, ...args) {
      aliceStarting.resolve();
      await written.promise;
      return write.apply(this, args);
    });
    const bobRead = deferred<void>();
    const ownerForCreate = SessionOwnerFiles.prototype.ownerForCreate;
    jest.spyOn(SessionOwnerFiles.prototype, 'ownerForCreate').mockImplementation(async function (this: SessionOwnerFiles, ...args) {
      const owner = await ownerForCreate.apply(this, args);
      if (args[2]?.name === 'bob') bobRead.resolve();
      return owner;
    });
    const alice = rt.sessions.create({ sessionId }, { name: 'alice', operator: false });
    // Alice's start holds at her owner record: Bob's create reads no owner yet and joins the same start.
    await aliceStarting.promise;
    const bob = rt.sessions.create({ sessionId }, { name: 'bob', operator: false });
    await bobRead.promise;
    await settle();
    written.resolve();
    await expect(alice).resolves.toMatchObject({ sessionId, attached: false });
    await expect(bob).rejects.toMatchObject({ code: 'invalid_session_id' });
  });

  it('refuses a prompt admitted while the session tears down, and releases only after the transcript flushed', async () => {
    const { sessionId } = await rt.sessions.create({ sessionScope: 'thread' });
    const flushed = holdDetach();

    const closing = rt.sessions.close(sessionId);
    await settle();
    expect(() => rt.bridge.admit(sessionId, text('late'))).toThrow(expect.objectContaining({ code: 'session_not_found' }));
    expect(rt.bridge.pendingPrompts(sessionId)).toEqual([]);
    expect(rt.ownership.calls).not.toContain(`release ${sessionId}`);

    flushed();
    await closing;
    expect(rt.ownership.calls).toContain(`release ${sessionId}`);
  });

  it('shutdown ends every session although one teardown fails; the failure is logged', async () => {
    const ids = [];
    for (let i = 0; i < 3; i += 1) ids.push((await rt.sessions.create({ sessionScope: 'thread' })).sessionId);
    const [a, b, c] = ids as [string, string, string];
    const detach = rt.recorder.detach.bind(rt.recorder);
    jest.spyOn(rt.recorder, 'detach').mockImplementation((id) => (id === b ? Promise.reject(new TypeError('disk gone')) : detach(id)));
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);

    shutDown = true;
    await rt.close();
    for (const id of [a, b, c]) expect(() => rt.sessions.require(id)).toThrow(expect.objectContaining({ code: 'session_not_found' }));
    // Even the failed one gives its ownership back: it no longer runs here.
    expect(rt.ownership.calls).toEqual(expect.arrayContaining([`release ${a}`, `release ${b}`, `release ${c}`]));
    expect(logged).toHaveBeenCalledWith(`session ${b} teardown (shutdown) failed: TypeError`);
  });

  it('shutdown waits for a close already under way', async () => {
    const { sessionId } = await rt.sessions.create({ sessionScope: 'thread' });
    const flushed = holdDetach();

    const closing = rt.sessions.close(sessionId);
    shutDown = true;
    const shutdown = rt.close().then(() => [...rt.ownership.calls]);
    await settle();
    flushed();
    await closing;
    expect(await shutdown).toContain(`release ${sessionId}`);
  });

  it('shutdown ends a session still starting, once it started', async () => {
    const attached = deferred<void>();
    const attach = rt.recorder.attach.bind(rt.recorder);
    jest.spyOn(rt.recorder, 'attach').mockImplementation(async (...args) => (await attached.promise, attach(...args)));
    const creating = rt.sessions.create({ sessionScope: 'thread' });
    await settle();

    shutDown = true;
    const shutdown = rt.close().then(() => [...rt.ownership.calls]);
    await settle();
    attached.resolve();
    const { sessionId } = await creating;
    expect(await shutdown).toContain(`release ${sessionId}`);
    expect(() => rt.sessions.require(sessionId)).toThrow(expect.objectContaining({ code: 'session_not_found' }));
  });

  it('a session lost while it starts is never made live: the start fails 503 cluster_unavailable; a later start makes it live', async () => {
    const sessionId = '5e0c2b7a-9d41-4f3e-8a6b-2c1d0e9f8a7b';
    const [attaching, attached] = [deferred<void>(), deferred<void>()];
    const attach = rt.recorder.attach.bind(rt.recorder);
    jest
      .spyOn(rt.recorder, 'attach')
      .mockImplementationOnce(async (...args) => (attaching.resolve(), await attached.promise, attach(...args)));
    const creating = rt.sessions.create({ sessionId }).then(
      () => 'live',
      (error: { code?: string; status?: number }) => `${error.status} ${error.code}`,
    );
    // Started (its owner read and written from disk): waited for, not guessed with a number of turns.
    await attaching.promise;

    rt.ownership.takeAway(sessionId);
    attached.resolve();
    expect(await creating).toBe('503 cluster_unavailable');
    expect(() => rt.sessions.require(sessionId)).toThrow(expect.objectContaining({ code: 'session_not_found' }));
    // Another node owns it: nothing given back from here.
    expect(rt.ownership.calls).toEqual([`claim ${sessionId}`]);

    await expect(rt.sessions.create({ sessionId })).resolves.toMatchObject({ sessionId, attached: false });
    expect(rt.sessions.require(sessionId).id).toBe(sessionId);
  });
});

/**
 * A load seeds the idempotency keys and client ids of the session's prompts
 * before the session is live: a retry during the transcript and ledger read
 * never meets a live session with an empty store (docs/idempotency.md).
 */
describe('SessionsService: a load restores the keys before the session is live', () => {
  let rt: LedgerRuntime;
  afterEach(async () => {
    jest.restoreAllMocks();
    await rt.module.close();
  });

  /** A closed session whose one prompt was admitted with key K by a named client. */
  async function keyedSession(): Promise<{ sessionId: string; clientId: string }> {
    rt = await startLedgerRuntime();
    const { sessionId, clientId } = await rt.sessions.create({ sessionScope: 'thread' });
    rt.bridge.admit(sessionId, ledgerText('keyed'), clientId, undefined, { key: 'K', fingerprint: 'f' });
    await rt.ledger.flush(sessionId);
    await rt.sessions.close(sessionId);
    return { sessionId, clientId };
  }

  it('while the ledger is read, the session is not live; once live, K replays and the client id is registered', async () => {
    const { sessionId, clientId } = await keyedSession();
    const [asked, read] = [deferred<void>(), deferred<void>()];
    const keyedAdmissions = rt.ledger.keyedAdmissions.bind(rt.ledger);
    jest.spyOn(rt.ledger, 'keyedAdmissions').mockImplementation(async (id) => (asked.resolve(), await read.promise, keyedAdmissions(id)));
    const registry = rt.module.get(SessionRegistry);
    const store = rt.module.get(IdempotencyStore);

    const loading = rt.sessions.load(sessionId);
    await asked.promise;
    expect(registry.get(sessionId)).toBeUndefined();

    read.resolve();
    await loading;
    expect(registry.isClientRegistered(sessionId, clientId)).toBe(true);
    expect(store.begin(idempotencyScope.prompt(sessionId, clientId, 'K'), 'f')).toMatchObject({ status: 202 });
  });

  it('a ledger that cannot be read fails the load with 503 ledger_unavailable and a warn; a later load succeeds', async () => {
    const { sessionId } = await keyedSession();
    const keyedAdmissions = rt.ledger.keyedAdmissions.bind(rt.ledger);
    jest.spyOn(rt.ledger, 'keyedAdmissions').mockRejectedValueOnce(Object.assign(new Error('EIO'), { name: 'EIO' }));
    const warned = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);

    await expect(rt.sessions.load(sessionId)).rejects.toMatchObject({ code: 'ledger_unavailable', status: 503 });
    expect(warned).toHaveBeenCalledWith(expect.stringContaining(`session ${sessionId} not loaded`));
    expect(rt.module.get(SessionRegistry).get(sessionId)).toBeUndefined();

    jest.mocked(rt.ledger.keyedAdmissions).mockImplementation(keyedAdmissions);
    await expect(rt.sessions.load(sessionId)).resolves.toMatchObject({ sessionId, attached: false });
  });
});

describe('SessionsService: the bound on live sessions', () => {
  /** Runs `test` on a runtime bounded to `maxSessions`, closed (its spies restored) after. */
  async function bounded(maxSessions: number, test: (rt: SessionsRuntime) => Promise<void>): Promise<void> {
    const rt = await startSessionsRuntime({ maxSessions });
    try {
      await test(rt);
    } finally {
      jest.restoreAllMocks();
      await rt.close();
    }
  }

  /** A live session that ran a prompt: persisted, so loadable once closed. */
  async function ranPrompt(rt: SessionsRuntime): Promise<string> {
    const { sessionId } = await rt.sessions.create({ sessionScope: 'thread' });
    rt.bridge.admit(sessionId, text('persisted'));
    (await rt.engine.nextTurn()).finish();
    await settle();
    return sessionId;
  }

  it('a load refused 503 too_many_sessions gives back the lease a cluster router claimed for it; a load of a started session is never refused', () =>
    bounded(1, async (rt) => {
      const parked = await ranPrompt(rt);
      await expect(rt.sessions.create({ sessionScope: 'thread' })).rejects.toMatchObject({ code: 'too_many_sessions' });
      // A cluster's claim for a load is refused the same way before it asks any owner to let go.
      expect(rt.ownership['claimRefused']()).toMatchObject({ code: 'too_many_sessions' });
      // Closed here (the bound is on live sessions), another takes its place.
      await rt.sessions.close(parked);
      const { sessionId: second } = await rt.sessions.create({ sessionScope: 'thread' });
      rt.ownership.calls.length = 0;
      // The router claims before the handler runs; the load is then over the bound.
      await rt.ownership.claim(parked);
      await expect(rt.sessions.load(parked)).rejects.toMatchObject({ code: 'too_many_sessions' });
      expect(rt.ownership.calls).toEqual([`claim ${parked}`, `release ${parked}`]);
      // The live one loads (attached), bound or not.
      await expect(rt.sessions.load(second)).resolves.toMatchObject({ sessionId: second, attached: true });
    }));

  it('a fork under way counts against the bound: a second fork meanwhile is refused 503 too_many_sessions', () =>
    bounded(2, async (rt) => {
      const sessionId = await ranPrompt(rt);
      const [forking, forked] = [deferred<void>(), deferred<void>()];
      const fork = rt.recorder.fork.bind(rt.recorder);
      jest.spyOn(rt.recorder, 'fork').mockImplementation(async (...args) => (forking.resolve(), await forked.promise, fork(...args)));
      const first = rt.sessions.fork(sessionId);
      await forking.promise;
      await expect(rt.sessions.fork(sessionId)).rejects.toMatchObject({ code: 'too_many_sessions' });
      forked.resolve();
      await expect(first).resolves.toMatchObject({ sessionId: expect.any(String) });
    }));

  it('a second load of a session still starting shares its start, though the start fills the bound', () =>
    bounded(1, async (rt) => {
      const sessionId = await ranPrompt(rt);
      await rt.sessions.close(sessionId);
      const [attaching, attached] = [deferred<void>(), deferred<void>()];
      const attach = rt.recorder.attach.bind(rt.recorder);
      jest
        .spyOn(rt.recorder, 'attach')
        .mockImplementation(async (...args) => (attaching.resolve(), await attached.promise, attach(...args)));
      const first = rt.sessions.load(sessionId);
      await attaching.promise;
      const second = rt.sessions.load(sessionId);
      attached.resolve();
      await expect(first).resolves.toMatchObject({ sessionId, attached: false });
      await expect(second).resolves.toMatchObject({ sessionId });
    }));
});

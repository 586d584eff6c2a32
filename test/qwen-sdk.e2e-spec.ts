import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  asKnownDaemonEvent,
  DaemonClient,
  DaemonHttpError,
  DaemonSessionClient,
  createDaemonSessionViewState,
  reduceDaemonSessionEvent,
  type DaemonEvent,
  type DaemonSessionViewState,
  type PermissionResponse,
} from '@qwen-code/sdk/daemon';
import { AcpEngine } from '../src/acp/acp.engine.js';
import { ADAPTERS, startDaemon, tempDir, type TestDaemon } from './support/test-daemon.js';
import { pollTurn } from './support/poll.js';

const ACP_FIXTURE = `node ${join(__dirname, 'fixtures', 'acp-fixture-agent.mjs')}`;
const text = (value: string) => ({ prompt: [{ type: 'text' as const, text: value }] });

/**
 * Reads the session's events with the SDK's own transport from `lastEventId`
 * until `promptId` has its terminal event, reduced by the SDK's reducer;
 * `onEvent` sees each as it comes (an answer to a request for approval).
 */
async function reduceUntilTerminal(
  client: DaemonClient,
  sessionId: string,
  promptId: string,
  from: { lastEventId?: number; epoch?: string; clientId?: string },
  onEvent?: (event: DaemonEvent) => Promise<void>,
): Promise<{ view: DaemonSessionViewState; events: DaemonEvent[] }> {
  const abort = new AbortController();
  let view = createDaemonSessionViewState();
  const events: DaemonEvent[] = [];
  try {
    for await (const event of client.subscribeEvents(sessionId, { ...from, signal: abort.signal })) {
      events.push(event);
      view = reduceDaemonSessionEvent(view, event);
      await onEvent?.(event);
      const data = event.data as { promptId?: string } | undefined;
      if ((event.type === 'turn_complete' || event.type === 'turn_error') && data?.promptId === promptId) break;
    }
  } finally {
    abort.abort();
  }
  return { view, events };
}

describe.each(ADAPTERS)('@qwen-code/sdk against the daemon (%s)', (httpAdapter) => {
  let daemon: TestDaemon;
  let client: DaemonClient;
  const start = async (
    root = tempDir(),
    overrides: Parameters<typeof startDaemon>[1] = { engine: undefined },
    config: Parameters<typeof startDaemon>[0] = {},
  ) => {
    // `engine: undefined` lets the daemon build its own: the echo engine.
    daemon = await startDaemon({ httpAdapter, dataDir: root, workspaces: [root], ...config }, overrides);
    client = new DaemonClient({ baseUrl: daemon.url });
    return root;
  };
  afterEach(() => daemon.close(true));

  it('prompts through DaemonSessionClient and resolves with the stop reason', async () => {
    await start();
    const session = await DaemonSessionClient.createOrAttach(client, { workspaceCwd: daemon.config.workspaces[0] });
    await expect(session.prompt(text('hello'))).resolves.toEqual({ stopReason: 'end_turn' });
    const caps = await client.capabilities();
    expect(caps.features).toEqual(
      expect.arrayContaining(['client_identity', 'non_blocking_prompt', 'session_status', 'session_resume', 'session_branch']),
    );
  });

  it('reduces every event of a prompt with nothing unrecognized, and learns the sessionId', async () => {
    await start();
    const session = await DaemonSessionClient.createOrAttach(client, { workspaceCwd: daemon.config.workspaces[0] });
    const admitted = await session.submitPrompt(text('hello there'));
    const { view, events } = await reduceUntilTerminal(client, session.sessionId, admitted.promptId, {
      lastEventId: admitted.lastEventId,
      epoch: admitted.eventEpoch,
    });
    const updates = events.filter((e) => e.type === 'session_update').map((e) => (e.data as { update: { sessionUpdate: string } }).update);
    expect(updates[0]).toEqual({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'hello there' } });
    expect(updates.slice(1).every((u) => u.sessionUpdate === 'agent_message_chunk')).toBe(true);
    // The replay the subscription asked for ends with replay_complete: the SDK's reducer counts that one marker.
    const markers = events.filter((e) => e.type === 'replay_complete');
    expect(events.filter((e) => e.type !== 'replay_complete').every((e) => e.id !== undefined)).toBe(true);
    expect(view.unrecognizedKnownEventCount).toBe(markers.length);
    expect(view.sessionId).toBe(session.sessionId);
    expect(view).toMatchObject({ lastTurnComplete: { sessionId: session.sessionId, promptId: admitted.promptId, stopReason: 'end_turn' } });
  });

  it('reduces a live stream opened before the prompt with 0 unrecognized events', async () => {
    await start();
    const session = await DaemonSessionClient.createOrAttach(client, { workspaceCwd: daemon.config.workspaces[0] });
    const abort = new AbortController();
    let accepted!: () => void;
    const open = new Promise<void>((resolve) => (accepted = resolve));
    const stream = client.subscribeEvents(session.sessionId, {
      lastEventId: 0,
      onSseStreamAccepted: () => accepted(),
      signal: abort.signal,
    });
    const first = stream.next();
    await open;
    const answer = session.prompt(text('over the open stream'));
    let view = createDaemonSessionViewState();
    const types: string[] = [];
    for (let next = await first; !next.done; next = await stream.next()) {
      view = reduceDaemonSessionEvent(view, next.value);
      types.push(next.value.type);
      if (next.value.type === 'turn_complete') break;
    }
    abort.abort();
    await expect(answer).resolves.toEqual({ stopReason: 'end_turn' });
    expect(types[0]).toBe('session_update');
    expect(types.at(-1)).toBe('turn_complete');
    expect(view.unrecognizedKnownEventCount).toBe(0);
    expect(view.sessionId).toBe(session.sessionId);
  });

  it('sees queued prompts as the peer announces them, and removes one', async () => {
    await start(tempDir(), {});
    const session = await DaemonSessionClient.createOrAttach(client, { workspaceCwd: daemon.config.workspaces[0] });
    const first = await session.submitPrompt(text('one'));
    const running = await daemon.engine.nextTurn();
    const second = await session.submitPrompt(text('two'));
    const third = await session.submitPrompt(text('three'));
    const pending = await session.getPendingPrompts();
    expect(pending.pendingPrompts.map((p) => [p.promptId, p.state])).toEqual([
      [first.promptId, 'running'],
      [second.promptId, 'queued'],
      [third.promptId, 'queued'],
    ]);
    await expect(session.removePendingPrompt(third.promptId)).resolves.toEqual({ removed: true });
    running.finish();
    (await daemon.engine.nextTurn()).finish();
    const { view, events } = await reduceUntilTerminal(client, session.sessionId, second.promptId, { lastEventId: 0 });
    const queueEvents = events
      .filter((e) => e.type.startsWith('pending_prompt_'))
      .map((e) => [e.type, (e.data as { promptId: string }).promptId]);
    expect(queueEvents).toEqual([
      ['pending_prompt_added', second.promptId],
      ['pending_prompt_added', third.promptId],
      ['pending_prompt_completed', third.promptId],
      ['pending_prompt_started', second.promptId],
    ]);
    // prompt_cancelled and replay_complete are not in the SDK's reducer (the peer sends them too): the ones it counts.
    const outside = events.filter((e) => e.type === 'prompt_cancelled' || e.type === 'replay_complete');
    expect(view.unrecognizedKnownEventCount).toBe(outside.length);
    expect(events.filter((e) => e.type === 'prompt_cancelled')).toHaveLength(1);
  });

  it('loads a session after a restart, and resumes its stream in the new epoch', async () => {
    const root = await start();
    const created = await DaemonSessionClient.createOrAttach(client, { workspaceCwd: root });
    await created.prompt(text('before the restart'));
    const before = (await client.sessionStatus(created.sessionId, created.clientId)) as unknown as { eventEpoch: string };
    await daemon.close();
    await start(root);
    const loaded = await DaemonSessionClient.load(client, created.sessionId, { workspaceCwd: root });
    expect(loaded.sessionId).toBe(created.sessionId);
    expect(loaded.attached).toBe(false);
    expect(loaded.eventEpoch).toEqual(expect.any(String));
    expect(loaded.eventEpoch).not.toBe(before.eventEpoch);
    expect(loaded.lastEventId).toBe(0);
    // The prompt ledger's terminals (docs/ledger.md) ride on the load's answer; the SDK keeps them with the session.
    const { promptTerminals } = (loaded as unknown as { session: { promptTerminals?: unknown[] } }).session;
    expect(promptTerminals).toEqual([expect.objectContaining({ terminal: 'completed', stopReason: 'end_turn' })]);
    await expect(loaded.prompt(text('after the restart'))).resolves.toEqual({ stopReason: 'end_turn' });
    // A cursor of the epoch before opens with state_resync_required.
    const abort = new AbortController();
    const stale = client.subscribeEvents(created.sessionId, { lastEventId: 1, epoch: before.eventEpoch, signal: abort.signal });
    const opening = await stale[Symbol.asyncIterator]().next();
    abort.abort();
    expect(opening.value).toMatchObject({ type: 'state_resync_required', data: { reason: 'epoch_reset', lastDeliveredId: 1 } });
    const view = reduceDaemonSessionEvent(createDaemonSessionViewState(), opening.value as DaemonEvent);
    expect(view).toMatchObject({ awaitingResync: true, resyncRequiredCount: 1, unrecognizedKnownEventCount: 0 });
  });

  it('resumes a live session with a new client id', async () => {
    await start();
    const session = await DaemonSessionClient.createOrAttach(client, { workspaceCwd: daemon.config.workspaces[0] });
    const resumed = await DaemonSessionClient.resume(client, session.sessionId, { workspaceCwd: daemon.config.workspaces[0] });
    expect(resumed.sessionId).toBe(session.sessionId);
    expect(resumed.attached).toBe(true);
    expect(resumed.clientId).not.toBe(session.clientId);
    await expect(resumed.prompt(text('resumed'))).resolves.toEqual({ stopReason: 'end_turn' });
  });

  it('branches, lists rewind snapshots and rewinds by a snapshot id', async () => {
    await start();
    const session = await DaemonSessionClient.createOrAttach(client, { workspaceCwd: daemon.config.workspaces[0] });
    await session.prompt(text('first'));
    await session.prompt(text('second'));
    const branched = await client.branchSession(session.sessionId, { name: 'side' }, session.clientId);
    expect(branched).toMatchObject({ attached: false, forkedFrom: { sessionId: session.sessionId } });
    expect(branched.sessionId).not.toBe(session.sessionId);
    const { snapshots } = (await session.getRewindSnapshots()) as unknown as {
      snapshots: Array<{ promptId: string; turnIndex: number; timestamp: string }>;
    };
    expect(snapshots.map((s) => [s.promptId, s.turnIndex])).toEqual([
      [`${session.sessionId}########0`, 0],
      [`${session.sessionId}########1`, 1],
    ]);
    await expect(session.rewind(snapshots[1]!.promptId)).resolves.toEqual({
      rewound: true,
      targetTurnIndex: 1,
      filesChanged: [],
      filesFailed: [],
    });
    const abort = new AbortController();
    let rewoundEvent: DaemonEvent | undefined;
    for await (const event of client.subscribeEvents(session.sessionId, { lastEventId: 0, signal: abort.signal })) {
      if (event.type === 'session_rewound') {
        rewoundEvent = event;
        break;
      }
    }
    abort.abort();
    expect(asKnownDaemonEvent(rewoundEvent!)).toBeDefined();
    expect(rewoundEvent!.data).toMatchObject({ sessionId: session.sessionId, targetTurnIndex: 1, filesChanged: [], filesFailed: [] });
    const after = (await session.getRewindSnapshots()) as unknown as { snapshots: unknown[] };
    expect(after.snapshots).toHaveLength(1);
    // The branch kept both turns.
    expect(((await client.getRewindSnapshots(branched.sessionId)) as unknown as { snapshots: unknown[] }).snapshots).toHaveLength(2);
    await expect(session.fork('summarize this')).rejects.toMatchObject({ status: 501 });
  });

  it('answers heartbeat and status, detaches and closes', async () => {
    await start();
    const session = await DaemonSessionClient.createOrAttach(client, { workspaceCwd: daemon.config.workspaces[0] });
    const beat = await session.heartbeat();
    expect(beat).toEqual({ sessionId: session.sessionId, clientId: session.clientId, lastSeenAt: expect.any(Number) });
    const status = await session.status();
    expect(status).toMatchObject({
      sessionId: session.sessionId,
      workspaceCwd: daemon.config.workspaces[0],
      clientCount: 1,
      hasActivePrompt: false,
    });
    const other = await DaemonSessionClient.resume(client, session.sessionId, { workspaceCwd: daemon.config.workspaces[0] });
    await other.detach();
    const refused = await client.heartbeat(session.sessionId, other.clientId).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DaemonHttpError);
    expect(refused).toMatchObject({ status: 400, body: { code: 'invalid_client_id', clientId: other.clientId } });
    await session.close();
    await expect(client.sessionStatus(session.sessionId)).rejects.toMatchObject({ status: 404 });
  });

  it('drives the real ACP fixture agent', async () => {
    await start(tempDir(), { engine: new AcpEngine(ACP_FIXTURE) });
    const session = await DaemonSessionClient.createOrAttach(client, { workspaceCwd: daemon.config.workspaces[0] });
    const admitted = await session.submitPrompt(text('tools please'));
    const { view, events } = await reduceUntilTerminal(client, session.sessionId, admitted.promptId, { lastEventId: 0 });
    const kinds = events
      .filter((e) => e.type === 'session_update')
      .map((e) => (e.data as { update: { sessionUpdate: string } }).update.sessionUpdate);
    expect(kinds).toEqual(
      expect.arrayContaining(['user_message_chunk', 'agent_thought_chunk', 'tool_call', 'tool_call_update', 'agent_message_chunk']),
    );
    // The agent's update as it sent it: fields the daemon itself does not read (kind) are kept.
    const toolCall = events.find((e) => (e.data as { update: { sessionUpdate: string } }).update?.sessionUpdate === 'tool_call');
    expect((toolCall!.data as { update: unknown }).update).toEqual({
      sessionUpdate: 'tool_call',
      toolCallId: 'call-1',
      title: 'List files',
      kind: 'read',
      status: 'pending',
    });
    expect(view.unrecognizedKnownEventCount).toBe(events.filter((e) => e.type === 'replay_complete').length);
    expect(view.sessionId).toBe(session.sessionId);
    expect(await pollTurn(daemon, session.sessionId, admitted.promptId)).toMatchObject({
      state: 'completed',
      resultText: 'There are two entries.',
    });
  });

  it('answers the agent’s requests for approval through respondToSessionPermission and respondToPermission (docs/permissions.md)', async () => {
    await start(tempDir(), { engine: new AcpEngine(ACP_FIXTURE) });
    const caps = await client.capabilities();
    expect(caps.features).toEqual(expect.arrayContaining(['session_permission_vote', 'permission_vote']));
    const session = await DaemonSessionClient.createOrAttach(client, { workspaceCwd: daemon.config.workspaces[0] });
    const answers = [
      {
        optionId: 'proceed_once',
        respond: (requestId: string, response: PermissionResponse) => session.respondToSessionPermission(requestId, response),
      },
      {
        optionId: 'reject',
        respond: (requestId: string, response: PermissionResponse) => session.respondToPermission(requestId, response),
      },
    ];
    for (const { optionId, respond } of answers) {
      const admitted = await session.submitPrompt(text('shell now'));
      const from = { lastEventId: admitted.lastEventId, epoch: admitted.eventEpoch };
      const { view, events } = await reduceUntilTerminal(client, session.sessionId, admitted.promptId, from, async (event) => {
        if (event.type !== 'permission_request') return;
        const { requestId } = event.data as { requestId: string };
        expect(await session.status()).toMatchObject({ isWaitingForPermission: true, pendingInteractionCount: 1 });
        const response = { outcome: { outcome: 'selected' as const, optionId } };
        await expect(respond(requestId, response)).resolves.toBe(true);
        // The first answer won: a second one is the SDK's `false` (a 404).
        await expect(respond(requestId, response)).resolves.toBe(false);
      });
      expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['permission_request', 'permission_resolved']));
      expect(view.unrecognizedKnownEventCount).toBe(events.filter((e) => e.type === 'replay_complete').length);
      expect(await pollTurn(daemon, session.sessionId, admitted.promptId)).toMatchObject({
        state: 'completed',
        resultText: optionId === 'reject' ? 'refused' : 'ran (proceed_once)',
      });
    }
    // The whole stream, replayed (the late answers' permission_already_resolved included), reduced with nothing unrecognized.
    const abort = new AbortController();
    let view = createDaemonSessionViewState();
    const replayed: DaemonEvent[] = [];
    for await (const event of client.subscribeEvents(session.sessionId, { lastEventId: 0, signal: abort.signal })) {
      if (event.type === 'replay_complete') break;
      replayed.push(event);
      view = reduceDaemonSessionEvent(view, event);
    }
    abort.abort();
    const permissions = replayed.filter((e) => e.type.startsWith('permission_'));
    expect(permissions.map((e) => e.type)).toEqual([
      'permission_request',
      'permission_resolved',
      'permission_already_resolved',
      'permission_request',
      'permission_resolved',
      'permission_already_resolved',
    ]);
    for (const event of permissions) expect(asKnownDaemonEvent(event)).toBeDefined();
    expect(view.unrecognizedKnownEventCount).toBe(0);
  });

  it('reduces the permission_forbidden of a designated responder’s refusal with nothing unrecognized (docs/permissions.md)', async () => {
    await start(tempDir(), { engine: new AcpEngine(ACP_FIXTURE) }, { permissionResponder: 'designated' });
    const workspaceCwd = daemon.config.workspaces[0];
    const session = await DaemonSessionClient.createOrAttach(client, { workspaceCwd });
    const other = await DaemonSessionClient.resume(client, session.sessionId, { workspaceCwd });
    const admitted = await session.submitPrompt(text('shell now'));
    const allow = { outcome: { outcome: 'selected' as const, optionId: 'proceed_once' } };
    // Read as the refused client: its stream names it by its own id, and the originator by a pseudonym only.
    const from = { lastEventId: admitted.lastEventId, epoch: admitted.eventEpoch, clientId: other.clientId };
    const { view, events } = await reduceUntilTerminal(client, session.sessionId, admitted.promptId, from, async (event) => {
      if (event.type !== 'permission_request') return;
      const { requestId } = event.data as { requestId: string };
      // Another client of the session is refused (403): only the prompt's originator may answer.
      await expect(other.respondToSessionPermission(requestId, allow)).rejects.toMatchObject({
        status: 403,
        body: { code: 'permission_forbidden', clientId: other.clientId },
      });
      await expect(session.respondToSessionPermission(requestId, allow)).resolves.toBe(true);
    });
    const forbidden = events.filter((e) => e.type === 'permission_forbidden');
    expect(forbidden).toHaveLength(1);
    expect(forbidden[0]!.data).toMatchObject({ sessionId: session.sessionId, reason: 'designated_mismatch', clientId: other.clientId });
    expect(JSON.stringify(events)).not.toContain(session.clientId);
    expect(asKnownDaemonEvent(forbidden[0]!)).toBeDefined();
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['permission_request', 'permission_resolved']));
    expect(view.unrecognizedKnownEventCount).toBe(events.filter((e) => e.type === 'replay_complete').length);
    expect(await pollTurn(daemon, session.sessionId, admitted.promptId)).toMatchObject({
      state: 'completed',
      resultText: 'ran (proceed_once)',
    });
  });

  it("works with a principal's token from a tokens file (sha256 line), and is refused 401 without it", async () => {
    const root = tempDir();
    const token = 'sdk-principal-token-4e2b';
    const tokensFile = join(root, 'tokens');
    writeFileSync(tokensFile, `sdk-user sha256:${createHash('sha256').update(token).digest('hex')}\n`);
    await start(root, { engine: undefined }, { tokensFile, requireAuth: true });
    const workspaceCwd = daemon.config.workspaces[0];
    await expect(DaemonSessionClient.createOrAttach(client, { workspaceCwd })).rejects.toMatchObject({ status: 401 });
    const authed = new DaemonClient({ baseUrl: daemon.url, token });
    const session = await DaemonSessionClient.createOrAttach(authed, { workspaceCwd });
    const admitted = await session.submitPrompt(text('hello with a token'));
    const { view } = await reduceUntilTerminal(authed, session.sessionId, admitted.promptId, {
      lastEventId: admitted.lastEventId,
      epoch: admitted.eventEpoch,
    });
    expect(view).toMatchObject({ lastTurnComplete: { promptId: admitted.promptId, stopReason: 'end_turn' } });
    await expect(session.prompt(text('and again'))).resolves.toEqual({ stopReason: 'end_turn' });
    expect((await authed.capabilities()).features).toEqual(expect.arrayContaining(['client_identity']));
  });
});

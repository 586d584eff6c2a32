import { readFileSync } from 'node:fs';
import type { PromptBridge } from '../bridge/prompt-bridge.js';
import type { SessionEvent } from '../wire/session-event.js';
import type { SessionEventBus } from '../events/session-event-bus.js';
import type { ScriptedEngine } from '../testing/scripted-engine.js';
import type { ChatRecordingService } from '../transcript/chat-recording.service.js';
import { startSessionsRuntime, type RecordingOwnership } from '../../test/support/sessions-runtime.js';
import type { SessionsService } from './sessions.service.js';

const ID = '4f0c3a52-9d7e-4b1a-8c6d-2e5f7a9b0c1d';

describe('SessionsService and its SessionOwnership', () => {
  let ownership: RecordingOwnership;
  let engine: ScriptedEngine;
  let sessions: SessionsService;
  let bridge: PromptBridge;
  let recorder: ChatRecordingService;
  let events: SessionEventBus;
  let close: () => Promise<void> = async () => undefined;

  beforeEach(async () => {
    ({ ownership, engine, sessions, bridge, recorder, events, close } = await startSessionsRuntime());
  });
  afterEach(() => close());

  it('claims before a session starts and releases after it closed; attaching claims nothing more', async () => {
    const created = await sessions.create({ sessionId: ID, sessionScope: 'thread' });
    expect(ownership.calls).toEqual([`claim ${ID}`]);
    await sessions.create({ sessionId: ID });
    expect(ownership.calls).toEqual([`claim ${ID}`]);
    await sessions.close(created.sessionId);
    expect(ownership.calls).toEqual([`claim ${ID}`, `release ${ID}`]);
  });

  it('a refused claim starts nothing: the error is the ownership’s, the session is not live', async () => {
    ownership.refuse = ID;
    await expect(sessions.create({ sessionId: ID })).rejects.toMatchObject({ code: 'session_on_other_node', details: { node: 'node-b' } });
    expect(() => sessions.require(ID)).toThrow(expect.objectContaining({ code: 'session_not_found' }));
  });

  it('a fork claims its new id; a load of an id with no transcript gives back what a router claimed for it', async () => {
    const source = await sessions.create({ sessionScope: 'thread' });
    const fork = await sessions.fork(source.sessionId);
    expect(ownership.calls).toContain(`claim ${fork.sessionId}`);
    await expect(sessions.load(ID)).rejects.toMatchObject({ code: 'session_not_found' });
    expect(ownership.calls.at(-1)).toBe(`release ${ID}`);
  });

  it('shutdown releases every session it stopped', async () => {
    const a = await sessions.create({ sessionScope: 'thread' });
    const b = await sessions.create({ sessionScope: 'thread' });
    await close();
    close = async () => undefined;
    expect(ownership.calls).toEqual(expect.arrayContaining([`release ${a.sessionId}`, `release ${b.sessionId}`]));
  });

  it('a loss closes the session here: its prompt ends in error session_closed and nothing more reaches its transcript', async () => {
    const { sessionId } = await sessions.create({ sessionId: ID, sessionScope: 'thread' });
    const { promptId } = bridge.admit(sessionId, [{ type: 'text', text: 'hi' }]);
    const turn = await engine.nextTurn();
    const path = recorder.pathOf(sessionId)!;
    await recorder.flush(sessionId);
    const before = readFileSync(path, 'utf8');
    const seen: SessionEvent[] = [];
    events.subscribe(sessionId).subscribe((event) => seen.push(event));

    ownership.takeAway(sessionId);
    turn.say('too late');
    turn.finish();
    // Let the turn's end run its course, then wait for any write it queued.
    await new Promise((resolve) => setImmediate(resolve));
    await recorder.flush(sessionId);

    expect(() => sessions.require(sessionId)).toThrow(expect.objectContaining({ code: 'session_not_found' }));
    expect(bridge.hasSession(sessionId)).toBe(false);
    expect(readFileSync(path, 'utf8')).toBe(before);
    expect(ownership.calls).not.toContain(`release ${sessionId}`);
    expect(seen).toContainEqual(
      expect.objectContaining({
        type: 'turn_error',
        promptId,
        data: expect.objectContaining({ error: expect.objectContaining({ code: 'session_closed' }) }),
      }),
    );
  });
});

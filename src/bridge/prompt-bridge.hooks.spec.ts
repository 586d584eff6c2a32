import { bridgeRig, text, type BridgeRig } from '../../test/support/fake-session-runner.js';
import type { EnginePermissionRequest } from '../engines/agent-engine.js';
import type { PendingInteraction } from '../turns/turn-status.js';
import type { HookedTurn, TurnHooks } from './turn-hooks.js';
import type { TurnTransition } from './turn-transition.js';

const REQUEST: EnginePermissionRequest = { toolCall: { title: 'rm -rf build' }, options: [{ optionId: 'yes', kind: 'allow_once' }] };
const ITEM: PendingInteraction = { requestId: 'r', kind: 'permission', createdAt: '1970-01-01T00:00:01.000Z', action: {}, options: [] };

/** A plug-in that records what the bridge asks and tells it, and shows `pending` on the running prompt. */
function recordingHooks(rig: BridgeRig) {
  const seen: string[] = [];
  const asked: Array<{ turn: HookedTurn; signal: AbortSignal }> = [];
  const pending = new Map<string, PendingInteraction[]>();
  let changed: (sessionId: string, promptId: string) => void = () => undefined;
  rig.events.subscribe('s').subscribe((event) => seen.push(`event ${event.type}`));
  const hooks: TurnHooks = {
    assertAdmissible: (sessionId, clientId) => {
      if (clientId === 'refused') throw new Error(`refused in ${sessionId}`);
    },
    ask: (turn, _request, signal) => {
      asked.push({ turn, signal });
      return Promise.resolve({ outcome: 'cancelled' });
    },
    observe: (transition: TurnTransition) => void seen.push(`hook ${transition.kind}`),
    pendingOf: (_sessionId, promptId) => pending.get(promptId),
    pendingInSession: (sessionId) => (sessionId === 's' ? [...pending.values()].flat() : []),
    clientLeft: (sessionId, clientId) => void seen.push(`left ${sessionId} ${clientId}`),
    onChange: (listener) => {
      changed = listener;
      return () => undefined;
    },
  };
  return { hooks, seen, asked, pending, change: (promptId: string) => changed('s', promptId) };
}

describe('PromptBridge turn hooks (docs/decisions.md#approval-is-a-plug-in-of-the-queue)', () => {
  let rig: BridgeRig;
  beforeEach(() => {
    rig = bridgeRig();
  });

  it('without hooks, checks nothing at admission, shows nothing pending, and hands the engine no one to ask', () => {
    const b = rig.bridge();
    const { promptId } = b.admit('s', text('a'), 'refused');
    expect(rig.dispatched[0]!.input.requestPermission).toBeUndefined();
    expect(b.getLive('s', promptId)).not.toHaveProperty('pendingInteractions');
    expect(b.pendingInteractions('s')).toEqual([]);
    expect(() => b.clientLeft('s', 'client_a')).not.toThrow();
  });

  it("answers a session's pending interactions and passes a client's detach on to them", () => {
    const { hooks, pending, seen } = recordingHooks(rig);
    const b = rig.bridge({}, hooks);
    pending.set('p1', [ITEM]);
    expect(b.pendingInteractions('s')).toEqual([ITEM]);
    expect(b.pendingInteractions('t')).toEqual([]);
    b.clientLeft('s', 'client_a');
    expect(seen).toContain('left s client_a');
  });

  it('registered after the bridge is built, they see each transition before its events, and refuse an admission first', () => {
    const { hooks, seen } = recordingHooks(rig);
    const b = rig.bridge();
    b.use(hooks);
    expect(() => b.admit('s', text('a'), 'refused')).toThrow('refused in s');
    expect(b.pendingPrompts('s')).toEqual([]);
    b.admit('s', text('a'), 'client_a');
    b.admit('s', text('b'), 'client_a');
    b.cancelRunning('s');
    expect(seen.filter((line) => !line.startsWith('event prompt_cancelled'))).toEqual([
      'hook admitted',
      'hook started',
      'hook admitted',
      'event pending_prompt_added',
    ]);
    const before = seen.length;
    b.closeSession('s');
    expect(seen.slice(before)).toEqual([
      'hook settled',
      'event turn_error',
      'hook settled',
      'event turn_error',
      'event pending_prompt_completed',
    ]);
  });

  it("asks them the running turn's questions, with its prompt, client, principal and signal", async () => {
    const { hooks, asked } = recordingHooks(rig);
    const b = rig.bridge({}, hooks);
    const { promptId } = b.admit('s', text('a'), 'client_a', undefined, undefined, { principal: 'alice' });
    await expect(rig.dispatched[0]!.input.requestPermission!(REQUEST)).resolves.toEqual({ outcome: 'cancelled' });
    expect(asked).toEqual([
      { turn: { sessionId: 's', promptId, originatorClientId: 'client_a', principal: 'alice' }, signal: expect.anything() },
    ]);
    expect(asked[0]!.signal).toBe(rig.dispatched[0]!.signal);
  });

  it('shows what the running prompt waits on once they say it changed (a new status)', () => {
    const { hooks, pending, change } = recordingHooks(rig);
    const b = rig.bridge({}, hooks);
    const { promptId } = b.admit('s', text('a'));
    const before = b.getLive('s', promptId);
    pending.set(promptId, [ITEM]);
    expect(b.getLive('s', promptId)).toBe(before);
    change(promptId);
    expect(b.getLive('s', promptId)).toMatchObject({ state: 'running', pendingInteractions: [ITEM] });
  });

  it('takes one plug-in; the same one registered again (a second init) changes nothing', () => {
    const { hooks, seen } = recordingHooks(rig);
    const b = rig.bridge({}, hooks);
    b.use(hooks);
    b.admit('s', text('a'));
    expect(seen.filter((line) => line === 'hook admitted')).toEqual(['hook admitted']);
    expect(() => b.use(recordingHooks(rig).hooks)).toThrow('the queue has its turn hooks already');
  });
});

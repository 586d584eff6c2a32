import { SessionEventBus } from '../events/session-event-bus.js';
import { bridgeRig, flush, text, type BridgeRig } from '../../test/support/fake-session-runner.js';
import { TURNS_CHANNELS } from '../telemetry/turns-channels.js';
import type { EnginePermissionOutcome } from '../engines/agent-engine.js';
import { PermissionBroker } from './permission-broker.js';

const REQUEST = {
  toolCall: { toolCallId: 'c1', title: 'echo ran > marker.txt', kind: 'execute' },
  options: [
    { optionId: 'yes', name: 'Allow', kind: 'allow_once' },
    { optionId: 'no', name: 'Reject', kind: 'reject_once' },
  ],
};
const BUDGET_REQUEST = { ...REQUEST, toolCall: { toolCallId: 'c1', title: 'rm -rf build', kind: 'execute' } };
const usage = (totalTokens: number) => ({ inputTokens: totalTokens - 10, outputTokens: 10, totalTokens });
const YES = { outcome: 'selected', optionId: 'yes' } as const;
const CANCELLED = { outcome: 'cancelled' } as const;

/** A bridge with the broker on its transition stream, and a running prompt whose agent asks for approval. */
function running(rig: BridgeRig, deadlineMs?: number) {
  const broker = new PermissionBroker(rig.runner, rig.events as SessionEventBus, rig.clock, {
    permissionPolicy: 'ask',
    permissionResponder: 'first-responder',
  });
  const bridge = rig.bridge(deadlineMs === undefined ? {} : { promptDeadlineMs: deadlineMs }, broker);
  const promptId = bridge.admit('s', text('shell')).promptId;
  const outcomes: EnginePermissionOutcome[] = [];
  const asked = rig.dispatched[0]!.input.requestPermission!(REQUEST).then((outcome) => void outcomes.push(outcome));
  const requestId = broker.pendingInSession('s')[0]!.requestId;
  return { broker, bridge, promptId, outcomes, asked, requestId };
}

const answerCode = (broker: PermissionBroker, requestId: string): string | undefined => {
  try {
    broker.answer(requestId, YES, undefined);
    return undefined;
  } catch (error) {
    return (error as { code?: string }).code;
  }
};

describe('tool approval races on the bridge (docs/permissions.md)', () => {
  let rig: BridgeRig;
  beforeEach(() => {
    rig = bridgeRig();
  });
  afterEach(() => jest.useRealTimers());

  it('shows the request on the running status (a new one, and the watchers woken) until it is answered', async () => {
    const broker = new PermissionBroker(rig.runner, rig.events, rig.clock, {
      permissionPolicy: 'ask',
      permissionResponder: 'first-responder',
    });
    const bridge = rig.bridge({}, broker);
    const promptId = bridge.admit('s', text('shell')).promptId;
    const before = bridge.getLive('s', promptId);
    let wakes = 0;
    bridge.watch('s', () => (wakes += 1));
    const asked = rig.dispatched[0]!.input.requestPermission!(REQUEST);
    const waiting = bridge.getLive('s', promptId)!;
    expect(waiting).not.toBe(before);
    expect(waiting).toMatchObject({
      state: 'running',
      pendingInteractions: [{ kind: 'permission', action: { title: 'echo ran > marker.txt' } }],
    });
    expect(wakes).toBe(1);
    broker.answer(broker.pendingInSession('s')[0]!.requestId, YES, undefined);
    expect(await asked).toEqual(YES);
    const after = bridge.getLive('s', promptId)!;
    expect(after).toMatchObject({ state: 'running' });
    expect('pendingInteractions' in after).toBe(false);
    expect(wakes).toBe(2);
  });

  it('an answer racing a cancel: the cancel first wins (the answer is a 404), and the agent gets cancelled once', async () => {
    const { broker, bridge, outcomes, asked, requestId } = running(rig);
    bridge.cancelRunning('s');
    expect(answerCode(broker, requestId)).toBe('permission_not_found');
    await asked;
    expect(outcomes).toEqual([CANCELLED]);
  });

  it('an answer racing a cancel: the answer first wins, and the cancel leaves it alone', async () => {
    const { broker, bridge, outcomes, asked, requestId } = running(rig);
    expect(answerCode(broker, requestId)).toBeUndefined();
    bridge.cancelRunning('s');
    await asked;
    expect(outcomes).toEqual([YES]);
  });

  it('an answer racing the deadline: the deadline first wins, the answer is a 404', async () => {
    jest.useFakeTimers();
    const { broker, bridge, promptId, outcomes, asked, requestId } = running(rig, 100);
    jest.advanceTimersByTime(100);
    expect(bridge.overlay.get('s', promptId)?.status).toMatchObject({ state: 'error', error: { code: 'prompt_deadline_exceeded' } });
    expect(answerCode(broker, requestId)).toBe('permission_not_found');
    await asked;
    expect(outcomes).toEqual([CANCELLED]);
    expect(broker.pendingCount).toBe(0);
  });

  it('an answer racing the deadline: the answer first wins, the deadline still ends the turn', async () => {
    jest.useFakeTimers();
    const { broker, bridge, promptId, outcomes, asked, requestId } = running(rig, 100);
    jest.advanceTimersByTime(99);
    expect(answerCode(broker, requestId)).toBeUndefined();
    jest.advanceTimersByTime(1);
    await asked;
    expect(outcomes).toEqual([YES]);
    expect(bridge.overlay.get('s', promptId)?.status.state).toBe('error');
  });

  it('removing the running prompt and closing the session answer the agent cancelled', async () => {
    const removed = running(rig);
    removed.bridge.remove('s', removed.promptId);
    await removed.asked;
    expect(removed.outcomes).toEqual([CANCELLED]);

    const closing = bridgeRig();
    const closed = running(closing);
    closed.bridge.closeSession('s');
    await closed.asked;
    expect(closed.outcomes).toEqual([CANCELLED]);
    expect(closed.broker.pendingCount).toBe(0);
  });

  it('a request asked after its turn completed is cancelled at once (logged and counted): nothing stays pending', async () => {
    const { broker, bridge, promptId, asked, requestId } = running(rig);
    broker.answer(requestId, YES, undefined);
    await asked;
    rig.dispatched[0]!.settle({});
    await flush();
    expect(bridge.overlay.get('s', promptId)?.status.state).toBe('completed');
    const decisions: Array<{ outcome: string; decidedBy: string }> = [];
    const stop = TURNS_CHANNELS.permissionDecided.subscribe((decision) => decisions.push(decision));
    const outcomes: unknown[] = [];
    const late = rig.dispatched[0]!.input.requestPermission!(REQUEST).then((outcome) => void outcomes.push(outcome));
    stop();
    expect(broker.pendingCount).toBe(0);
    expect(broker.pendingInSession('s')).toEqual([]);
    expect(decisions).toEqual([{ outcome: 'cancelled', decidedBy: 'turn_end' }]);
    await late;
    expect(outcomes).toEqual([CANCELLED]);
  });

  it('no answer is taken while the session is torn down (out of the registry, not yet closed); the close cancels it', async () => {
    const { broker, bridge, outcomes, asked, requestId } = running(rig);
    rig.runner.live.delete('s');
    expect(answerCode(broker, requestId)).toBe('permission_not_found');
    bridge.closeSession('s');
    await asked;
    expect(outcomes).toEqual([CANCELLED]);
  });

  it('announces the request resolved before the turn’s terminal event', async () => {
    jest.useFakeTimers();
    const { asked } = running(rig, 100);
    jest.advanceTimersByTime(100);
    await asked;
    const types = rig.published.map((e) => e.type).filter((t) => t.startsWith('permission') || t.startsWith('turn_'));
    expect(types).toEqual(['permission_request', 'permission_resolved', 'turn_error']);
  });

  it('answers a request for approval that comes after the budget is passed cancelled, even under policy allow', async () => {
    const broker = new PermissionBroker(rig.runner, rig.events as SessionEventBus, rig.clock, {
      permissionPolicy: 'allow',
      permissionResponder: 'first-responder',
    });
    const b = rig.bridge({}, broker);
    b.admit('s', text('shell'), undefined, undefined, undefined, { maxTokens: 10 });
    const run = rig.dispatched[0]!.input;
    await expect(run.requestPermission!(BUDGET_REQUEST)).resolves.toEqual({ outcome: 'selected', optionId: 'yes' });
    run.onUsage!(usage(20));
    await expect(run.requestPermission!(BUDGET_REQUEST)).resolves.toEqual({ outcome: 'cancelled' });
  });
});

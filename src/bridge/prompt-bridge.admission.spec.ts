import { deferred } from '../../test/support/deferred.js';
import { bridgeRig, flush, text, type BridgeRig } from '../../test/support/fake-session-runner.js';
import type { PromptBridge, TurnTransition } from './prompt-bridge.js';

/** A prompt held until its admission's record is decided: nothing of a refused one leaves the bridge. */
describe('PromptBridge admission gate', () => {
  let rig: BridgeRig;
  let b: PromptBridge;
  let gates: Array<ReturnType<typeof deferred<void>>>;
  let seen: string[];

  beforeEach(() => {
    rig = bridgeRig();
    b = rig.bridge({ promptDeadlineMs: 60_000 });
    gates = [];
    // Each admission waits on a gate of its own, in order.
    b.gateAdmissions(() => {
      const gate = deferred<void>();
      gate.promise.catch(() => undefined);
      gates.push(gate);
      return gate.promise;
    });
    seen = [];
    b.onTransition((t: TurnTransition) => seen.push(`${t.kind} ${t.promptId}`));
  });
  afterEach(() => jest.useRealTimers());

  /** The session events published for a prompt, by type. */
  const eventsOf = (promptId: string) => rig.published.filter((e) => e.promptId === promptId).map((e) => e.type);

  it('a refused admission is withdrawn: no terminal, no turn event, no poll answer; a waiting one leaves the pending list', async () => {
    const first = b.admit('s', text('first')).promptId;
    const refused = b.admit('s', text('refused')).promptId;
    gates[0]!.resolve();
    await flush();
    gates[1]!.reject(new Error('fenced'));
    await b.admissionsDecided('s');
    expect(seen).toEqual([`admitted ${first}`, `admitted ${refused}`, `started ${first}`, `withdrawn ${refused}`]);
    expect(b.getLive('s', refused)).toBeUndefined();
    expect(b.overlay.get('s', refused)).toBeUndefined();
    expect(eventsOf(refused)).toEqual(['pending_prompt_added', 'pending_prompt_completed']);
    expect(b.remove('s', refused)).toBe(false);
  });

  it('a refused head is withdrawn and the acknowledged prompt behind it runs', async () => {
    const refused = b.admit('s', text('refused')).promptId;
    const next = b.admit('s', text('next')).promptId;
    gates[1]!.resolve();
    await flush();
    expect(rig.dispatched).toEqual([]);
    gates[0]!.reject(new Error('fenced'));
    await b.admissionsDecided('s');
    expect(rig.dispatched.map((d) => d.input.promptId)).toEqual([next]);
    expect(seen).toContain(`withdrawn ${refused}`);
  });

  it('a removal while held waits for the verdict: announced once acknowledged, dropped when refused', async () => {
    const kept = b.admit('s', text('kept')).promptId;
    const refused = b.admit('s', text('refused')).promptId;
    expect(b.remove('s', kept)).toBe(true);
    expect(b.remove('s', refused)).toBe(true);
    expect(b.remove('s', refused)).toBe(false);
    expect(eventsOf(kept)).toEqual([]);
    gates[0]!.resolve();
    gates[1]!.reject(new Error('ledger_unavailable'));
    await b.admissionsDecided('s');
    expect(b.overlay.get('s', kept)?.status).toMatchObject({ state: 'cancelled', stopReason: 'cancelled' });
    expect(eventsOf(kept)).toEqual(['prompt_cancelled', 'turn_complete']);
    expect(eventsOf(refused)).toEqual(['pending_prompt_added', 'pending_prompt_completed']);
    expect(seen.filter((s) => !s.startsWith('admitted'))).toEqual([`settled ${kept}`, `withdrawn ${refused}`]);
    expect(rig.dispatched).toEqual([]);
  });

  it('a deadline that passes while held waits for the verdict: its error once acknowledged, nothing when refused', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate'] });
    const late = b.admit('s', text('late'), undefined, 10).promptId;
    const refused = b.admit('s', text('refused'), undefined, 10).promptId;
    jest.advanceTimersByTime(10);
    expect(b.getLive('s', late)).toMatchObject({ state: 'queued' });
    expect(seen.filter((s) => s.startsWith('settled'))).toEqual([]);
    gates[0]!.resolve();
    gates[1]!.reject(new Error('fenced'));
    await b.admissionsDecided('s');
    expect(b.overlay.get('s', late)?.status).toMatchObject({ state: 'error', error: { code: 'prompt_deadline_exceeded' } });
    expect(eventsOf(late)).toEqual(['turn_error']);
    expect(b.overlay.get('s', refused)).toBeUndefined();
    expect(seen.filter((s) => !s.startsWith('admitted'))).toEqual([`settled ${late}`, `withdrawn ${refused}`]);
    expect(rig.dispatched).toEqual([]);
  });

  it('a close after the admissions are decided: session_closed for the acknowledged, nothing for the refused', async () => {
    const running = b.admit('s', text('running')).promptId;
    gates[0]!.resolve();
    await flush();
    const acknowledged = b.admit('s', text('acknowledged')).promptId;
    const refused = b.admit('s', text('refused')).promptId;
    rig.runner.live.delete('s');
    const decided = b.admissionsDecided('s');
    gates[1]!.resolve();
    gates[2]!.reject(new Error('fenced'));
    await decided;
    b.closeSession('s');
    for (const promptId of [running, acknowledged]) {
      expect(eventsOf(promptId)).toContain('turn_error');
      expect(seen).toContain(`settled ${promptId}`);
    }
    expect(eventsOf(refused)).toEqual(['pending_prompt_added', 'pending_prompt_completed']);
    expect(seen.filter((s) => s.endsWith(refused))).toEqual([`admitted ${refused}`, `withdrawn ${refused}`]);
    // The acknowledged one never ran: its session was leaving when it was decided.
    expect(rig.dispatched.map((d) => d.input.promptId)).toEqual([running]);
  });
});

import { Logger } from '@nestjs/common';
import { clientPseudonym } from '../client-id/client-pseudonym.js';
import { ApiException } from '../errors/api-exception.js';
import { SessionEventBus } from '../events/session-event-bus.js';
import { ManualClock } from '../../test/support/manual-clock.js';
import { FakeRunner } from '../../test/support/fake-session-runner.js';
import { TURNS_CHANNELS } from '../telemetry/turns-channels.js';
import type { EnginePermissionOutcome } from '../engines/agent-engine.js';
import type { SessionEventKind } from '../wire/session-event.js';
import { PermissionBroker } from './permission-broker.js';
import type { PermissionOptions } from './permissions.settings.js';
import { MAX_PENDING_PER_SESSION } from './permission-policy.js';

const SESSION = '0b7c5a3e-8f7e-4c52-9d0c-3c1f2e4a5b6c';
const TURN = { sessionId: SESSION, promptId: 'p1', originatorClientId: 'client_a' };
const REQUEST = {
  toolCall: { toolCallId: 'c1', title: 'rm -rf build', kind: 'execute', rawInput: { command: 'rm -rf build' } },
  options: [
    { optionId: 'yes', name: 'Allow', kind: 'allow_once' },
    { optionId: 'no', name: 'Reject', kind: 'reject_once' },
  ],
};
const YES = { outcome: 'selected', optionId: 'yes' } as const;
const NO = { outcome: 'selected', optionId: 'no' } as const;

function rig(options: Partial<PermissionOptions> = {}) {
  const clock = new ManualClock();
  const events = new SessionEventBus(clock);
  const published: Array<{ type: SessionEventKind; data: unknown }> = [];
  events.subscribe(SESSION).subscribe((e) => published.push({ type: e.type, data: e.data }));
  const sessions = new FakeRunner(clock);
  sessions.live.add(SESSION);
  const broker = new PermissionBroker(sessions, events, clock, {
    permissionPolicy: 'ask',
    permissionResponder: 'first-responder',
    ...options,
  });
  const changes: string[] = [];
  broker.onChange((sessionId, promptId) => changes.push(`${sessionId} ${promptId}`));
  const ask = (signal = new AbortController().signal) => {
    const outcomes: EnginePermissionOutcome[] = [];
    const asked = broker.ask(TURN, REQUEST, signal).then((outcome) => void outcomes.push(outcome));
    const [item] = broker.pendingOf(SESSION, 'p1') ?? [];
    return { outcomes, asked, requestId: item?.requestId ?? '' };
  };
  return { broker, events, sessions, published, changes, ask };
}

/** The decisions published on the metrics channel while `action` runs. */
async function decisionsDuring(action: () => Promise<void>): Promise<Array<{ outcome: string; decidedBy: string }>> {
  const seen: Array<{ outcome: string; decidedBy: string }> = [];
  const stop = TURNS_CHANNELS.permissionDecided.subscribe((decision) => seen.push(decision));
  try {
    await action();
  } finally {
    stop();
  }
  return seen;
}

const codeOf = (action: () => void): string | undefined => {
  try {
    action();
    return undefined;
  } catch (error) {
    return error instanceof ApiException ? error.code : 'not an ApiException';
  }
};

describe('PermissionBroker', () => {
  afterEach(() => jest.useRealTimers());

  it('holds a request until the first answer, hands that one to the agent once, and announces both', async () => {
    const { broker, published, changes, ask } = rig();
    const { outcomes, asked, requestId } = ask();
    expect(broker.pendingInSession(SESSION)).toHaveLength(1);
    expect(published.map((e) => e.type)).toEqual(['permission_request']);
    expect(changes).toEqual([`${SESSION} p1`]);
    broker.answer(requestId, YES, 'client_b', SESSION);
    await asked;
    expect(outcomes).toEqual([YES]);
    expect(broker.pendingOf(SESSION, 'p1')).toBeUndefined();
    expect(broker.pendingCount).toBe(0);
    expect(published.at(-1)).toEqual({
      type: 'permission_resolved',
      data: { sessionId: SESSION, requestId, outcome: YES, voterClientId: clientPseudonym(SESSION, 'client_b') },
    });
    expect(changes).toHaveLength(2);
  });

  it('lets one of two answers given at once win; the other is a 404 and the late voter is told the outcome', async () => {
    const { broker, published, ask } = rig();
    const { outcomes, asked, requestId } = ask();
    const answers = await Promise.allSettled([
      Promise.resolve().then(() => broker.answer(requestId, NO, 'client_a')),
      Promise.resolve().then(() => broker.answer(requestId, YES, 'client_b')),
    ]);
    await asked;
    expect(answers.map((a) => a.status)).toEqual(['fulfilled', 'rejected']);
    expect(((answers[1] as PromiseRejectedResult).reason as ApiException).code).toBe('permission_not_found');
    expect(outcomes).toEqual([NO]);
    expect(published.filter((e) => e.type === 'permission_resolved')).toHaveLength(1);
    expect(published.at(-1)).toEqual({ type: 'permission_already_resolved', data: { sessionId: SESSION, requestId, outcome: NO } });
  });

  it('answers the agent cancelled when the turn ends first; a later answer is a 404', async () => {
    const { broker, ask } = rig();
    const turn = new AbortController();
    const { outcomes, asked, requestId } = ask(turn.signal);
    turn.abort();
    expect(codeOf(() => broker.answer(requestId, YES, undefined))).toBe('permission_not_found');
    await asked;
    expect(outcomes).toEqual([{ outcome: 'cancelled' }]);
  });

  it('keeps the answer given before the turn ends', async () => {
    const { broker, ask } = rig();
    const turn = new AbortController();
    const { outcomes, asked, requestId } = ask(turn.signal);
    broker.answer(requestId, YES, undefined);
    turn.abort();
    await asked;
    expect(outcomes).toEqual([YES]);
  });

  it('refuses an option not offered, another session’s route and an unknown id — and keeps waiting', () => {
    const { broker, ask } = rig();
    const { requestId } = ask();
    expect(codeOf(() => broker.answer(requestId, { outcome: 'selected', optionId: 'maybe' }, undefined))).toBe(
      'permission_option_not_offered',
    );
    expect(codeOf(() => broker.answer(requestId, YES, undefined, '11111111-2222-4333-8444-555555555555'))).toBe('permission_not_found');
    expect(codeOf(() => broker.answer('nope', YES, undefined))).toBe('permission_not_found');
    expect(broker.pendingCount).toBe(1);
  });

  it('under designated, lets only the originator answer (403, and a permission_forbidden event)', async () => {
    const { broker, published, ask } = rig({ permissionResponder: 'designated' });
    const { outcomes, asked, requestId } = ask();
    expect(codeOf(() => broker.answer(requestId, YES, 'client_b'))).toBe('permission_forbidden');
    expect(codeOf(() => broker.answer(requestId, YES, undefined))).toBe('permission_forbidden');
    expect(published.at(-1)?.type).toBe('permission_forbidden');
    broker.answer(requestId, YES, 'client_a');
    await asked;
    expect(outcomes).toEqual([YES]);
  });

  it('under designated, answers cancelled at once the requests of an originator that left; another client leaving changes nothing', async () => {
    const { broker, published, ask } = rig({ permissionResponder: 'designated' });
    const { outcomes, asked } = ask();
    broker.clientLeft(SESSION, 'client_b');
    expect(broker.pendingCount).toBe(1);
    const seen = await decisionsDuring(async () => {
      broker.clientLeft(SESSION, 'client_a');
      await asked;
    });
    expect(outcomes).toEqual([{ outcome: 'cancelled' }]);
    expect(broker.pendingCount).toBe(0);
    expect(seen).toEqual([{ outcome: 'cancelled', decidedBy: 'client_left' }]);
    expect(published.at(-1)).toMatchObject({ type: 'permission_resolved', data: { outcome: { outcome: 'cancelled' } } });
  });

  it('under first-responder, keeps the requests of a client that left: any other may answer them', () => {
    const { broker, ask } = rig();
    ask();
    broker.clientLeft(SESSION, 'client_a');
    expect(broker.pendingCount).toBe(1);
  });

  it('refuses, under ask and designated only, to admit a prompt with no client id (400 client_id_required)', () => {
    expect(codeOf(() => rig({ permissionResponder: 'designated' }).broker.assertAdmissible(SESSION, undefined))).toBe('client_id_required');
    expect(codeOf(() => rig({ permissionResponder: 'designated' }).broker.assertAdmissible(SESSION, 'client_a'))).toBeUndefined();
    expect(codeOf(() => rig().broker.assertAdmissible(SESSION, undefined))).toBeUndefined();
    const allow = rig({ permissionResponder: 'designated', permissionPolicy: 'allow' });
    expect(codeOf(() => allow.broker.assertAdmissible(SESSION, undefined))).toBeUndefined();
  });

  it('names clients in its audit lines by pseudonym and principal, never by id', async () => {
    const lines: string[] = [];
    const log = jest.spyOn(Logger.prototype, 'log').mockImplementation((line: unknown) => void lines.push(String(line)));
    try {
      const { broker } = rig();
      const asked = broker.ask({ ...TURN, principal: 'alice' }, REQUEST, new AbortController().signal);
      const [item] = broker.pendingOf(SESSION, 'p1') ?? [];
      broker.answer(item!.requestId, YES, 'client_b', SESSION, 'bob');
      await asked;
    } finally {
      log.mockRestore();
    }
    expect(lines).toEqual([
      expect.stringContaining(`client ${clientPseudonym(SESSION, 'client_a')} of principal alice`),
      expect.stringContaining(`decided by client ${clientPseudonym(SESSION, 'client_b')} of principal bob`),
    ]);
    expect(lines.join('\n')).not.toMatch(/client_[ab]/);
  });

  it('refuses a request nobody answered within the time-out', async () => {
    jest.useFakeTimers();
    const { broker, ask } = rig({ permissionTimeoutMs: 1_000 });
    const { outcomes, asked } = ask();
    jest.advanceTimersByTime(999);
    expect(broker.pendingCount).toBe(1);
    jest.advanceTimersByTime(1);
    await asked;
    expect(outcomes).toEqual([NO]);
    expect(broker.pendingCount).toBe(0);
  });

  it.each([
    ['allow', YES],
    ['deny', NO],
  ] as const)('under %s, answers at once and holds nothing', async (permissionPolicy, expected) => {
    const { broker, published, ask } = rig({ permissionPolicy });
    const { outcomes, asked } = ask();
    await asked;
    expect(outcomes).toEqual([expected]);
    expect(broker.pendingCount).toBe(0);
    expect(published).toEqual([]);
  });

  it('answers cancelled, under any policy, a request of a turn that has ended already', async () => {
    const turn = new AbortController();
    turn.abort();
    for (const permissionPolicy of ['ask', 'allow', 'deny'] as const) {
      const { broker, ask } = rig({ permissionPolicy });
      const { outcomes, asked } = ask(turn.signal);
      await asked;
      expect([permissionPolicy, outcomes]).toEqual([permissionPolicy, [{ outcome: 'cancelled' }]]);
      expect(broker.pendingCount).toBe(0);
    }
  });

  it('under designated, refuses a client before it looks at the option (403, not 400)', () => {
    const { broker, ask } = rig({ permissionResponder: 'designated' });
    const { requestId } = ask();
    expect(codeOf(() => broker.answer(requestId, { outcome: 'selected', optionId: 'maybe' }, 'client_b'))).toBe('permission_forbidden');
    expect(codeOf(() => broker.answer(requestId, { outcome: 'selected', optionId: 'maybe' }, 'client_a'))).toBe(
      'permission_option_not_offered',
    );
  });

  it('answers nothing while its session is not live (a teardown before the close): 404, no event, the agent still waits', async () => {
    const { broker, sessions, published, ask } = rig();
    const { outcomes, asked, requestId } = ask();
    sessions.live.delete(SESSION);
    for (const clientId of ['client_b', undefined]) {
      expect(codeOf(() => broker.answer(requestId, YES, clientId))).toBe('permission_not_found');
      expect(codeOf(() => broker.answer(requestId, YES, clientId, SESSION))).toBe('permission_not_found');
    }
    expect(published.map((e) => e.type)).toEqual(['permission_request']);
    expect(broker.pendingCount).toBe(1);
    broker.onApplicationShutdown();
    await asked;
    expect(outcomes).toEqual([{ outcome: 'cancelled' }]);
  });

  it('puts no late answer on the stream of a session that has closed (which would start a new one for it)', async () => {
    const { broker, events, sessions, ask } = rig();
    const { asked, requestId } = ask();
    broker.answer(requestId, YES, undefined);
    await asked;
    sessions.live.delete(SESSION);
    events.close(SESSION);
    expect(codeOf(() => broker.answer(requestId, NO, undefined))).toBe('permission_not_found');
    expect(events.newestEventAt(SESSION)).toBeUndefined();
  });

  it('answers cancelled at once, counted as the turn’s end, a request of a session that is not live', async () => {
    const { broker, sessions, ask } = rig();
    sessions.live.delete(SESSION);
    const decisions = await decisionsDuring(async () => {
      const { outcomes, asked } = ask();
      await asked;
      expect(outcomes).toEqual([{ outcome: 'cancelled' }]);
    });
    expect(decisions).toEqual([{ outcome: 'cancelled', decidedBy: 'turn_end' }]);
    expect(broker.pendingCount).toBe(0);
  });

  it('holds at most 16 requests a session: one more is cancelled at once, with a warn that never carries the tool input', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      const { broker, published, ask } = rig();
      for (let i = 0; i < MAX_PENDING_PER_SESSION; i += 1) ask();
      expect(broker.pendingInSession(SESSION)).toHaveLength(16);
      const decisions = await decisionsDuring(async () => {
        const { outcomes, asked } = ask();
        await asked;
        expect(outcomes).toEqual([{ outcome: 'cancelled' }]);
      });
      expect(decisions).toEqual([{ outcome: 'cancelled', decidedBy: 'limit' }]);
      expect(broker.pendingInSession(SESSION)).toHaveLength(16);
      expect(broker.pendingOf(SESSION, 'p1')).toHaveLength(16);
      expect(published.filter((e) => e.type === 'permission_request')).toHaveLength(16);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0]![0])).toMatch(/cancelled: 16 requests of session .* are pending/);
      expect(String(warn.mock.calls[0]![0])).not.toContain('rm -rf');
    } finally {
      warn.mockRestore();
    }
  });

  it('answers every pending request cancelled at shutdown', async () => {
    const { broker, ask } = rig();
    const { outcomes, asked } = ask();
    broker.onApplicationShutdown();
    await asked;
    expect(outcomes).toEqual([{ outcome: 'cancelled' }]);
  });
});

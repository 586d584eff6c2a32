import type { SettledTurnStatus } from '../turn-status.js';
import { TerminalOverlay } from './terminal-overlay.js';

const settled = (sessionId: string, promptId: string, extra: Partial<SettledTurnStatus> = {}) =>
  ({ sessionId, state: 'completed', promptId, endedAt: 1, ...extra }) as SettledTurnStatus;
const deadline = (sessionId: string, promptId: string): SettledTurnStatus => ({
  sessionId,
  state: 'error',
  promptId,
  endedAt: 1,
  error: { message: 'Prompt deadline exceeded', code: 'prompt_deadline_exceeded' },
});

describe('TerminalOverlay', () => {
  it('tells a scan whether its session was closed since it began, even if it is live again', () => {
    const overlay = new TerminalOverlay();
    overlay.forget('s');
    const mark = overlay.closeMark();
    expect(overlay.leftSince('s', mark)).toBe(false); // closed before the mark
    overlay.forget('other');
    expect(overlay.leftSince('s', mark)).toBe(false);
    overlay.forget('s');
    overlay.publish(settled('s', 'a')); // back, with a terminal of its new attachment
    expect(overlay.leftSince('s', mark)).toBe(true);
    expect(overlay.leftSince('s', overlay.closeMark())).toBe(false);
  });

  it('takes a session for closed when more sessions closed since the mark than it remembers', () => {
    const overlay = new TerminalOverlay();
    const mark = overlay.closeMark();
    for (let i = 0; i < 1_024; i += 1) overlay.forget(`s${i}`);
    expect(overlay.leftSince('s', mark)).toBe(false);
    overlay.forget('s1024');
    expect(overlay.leftSince('s', mark)).toBe(true);
  });

  it('keeps the first terminal of a prompt: a later one is refused and changes nothing, the newest included', () => {
    const overlay = new TerminalOverlay();
    expect(overlay.publish(deadline('s', 'a'))).toBe(true);
    expect(overlay.publish(settled('s', 'b'))).toBe(true);
    expect(overlay.publish(settled('s', 'a', { resultText: 'late' }))).toBe(false);
    expect(overlay.get('s', 'a')).toEqual({ status: deadline('s', 'a'), combined: false });
    expect(overlay.newest('s')?.status.promptId).toBe('b');
  });

  it('refuses a terminal for a prompt the poll already wrote back, and keeps what it combined', () => {
    const overlay = new TerminalOverlay();
    overlay.publish(deadline('s', 'a'));
    overlay.writeBack('s', settled('s', 'a', { resultText: 'from the transcript' }), false);
    expect(overlay.publish(settled('s', 'a'))).toBe(false);
    expect(overlay.get('s', 'a')).toEqual({ status: settled('s', 'a', { resultText: 'from the transcript' }), combined: true });
  });

  it('lets the runtime’s terminal replace a result read back for a prompt it never published, and latches that one', () => {
    const overlay = new TerminalOverlay();
    overlay.writeBack('s', settled('s', 'a', { resultText: 'an older turn of the same id' }), true);
    expect(overlay.publish(deadline('s', 'a'))).toBe(true);
    expect(overlay.get('s', 'a')).toEqual({ status: deadline('s', 'a'), combined: false });
    expect(overlay.newest('s')?.status).toEqual(deadline('s', 'a'));
    expect(overlay.publish(settled('s', 'a'))).toBe(false);
  });

  it('makes a write-back the newest only for a current answer', () => {
    const overlay = new TerminalOverlay();
    overlay.publish(settled('s', 'new'));
    overlay.writeBack('s', settled('s', 'old'), false);
    expect(overlay.newest('s')?.status.promptId).toBe('new');
    overlay.writeBack('s', settled('s', 'newer'), true);
    expect(overlay.newest('s')).toEqual({ status: settled('s', 'newer'), combined: true });
  });

  it('keeps sessions apart, each with its own bound', () => {
    const overlay = new TerminalOverlay({ capacity: 2 });
    for (const promptId of ['a', 'b', 'c']) overlay.publish(settled('s', promptId));
    overlay.publish(settled('t', 'a'));
    expect(overlay.entries('s').map((entry) => entry.status.promptId)).toEqual(['b', 'c']);
    expect(overlay.get('t', 'a')).toBeDefined();
    expect(overlay.newest('t')?.status.sessionId).toBe('t');
    // Past the bound the latch has forgotten the prompt: a terminal for it is taken again.
    expect(overlay.publish(settled('s', 'a'))).toBe(true);
  });

  it('answers nothing, and holds nothing, for a session it never saw', () => {
    const overlay = new TerminalOverlay();
    expect([overlay.get('x', 'p'), overlay.newest('x'), overlay.entries('x'), overlay.generation('x')]).toEqual([
      undefined,
      undefined,
      [],
      0,
    ]);
    expect(overlay.capacity).toBe(64);
  });

  it('clears a session on a successful rewind and bumps its generation, also with nothing held', () => {
    const overlay = new TerminalOverlay();
    overlay.rewound('empty');
    expect(overlay.generation('empty')).toBe(1);
    overlay.publish(settled('s', 'a'));
    overlay.publish(settled('t', 'a'));
    overlay.rewound('s');
    expect([overlay.get('s', 'a'), overlay.newest('s'), overlay.generation('s')]).toEqual([undefined, undefined, 1]);
    expect(overlay.get('t', 'a')).toBeDefined();
    expect(overlay.publish(settled('s', 'b'))).toBe(true);
    expect(overlay.generation('s')).toBe(1);
  });

  it('forgets a closed session', () => {
    const overlay = new TerminalOverlay();
    overlay.publish(settled('s', 'a'));
    overlay.rewound('s');
    overlay.publish(settled('s', 'b'));
    overlay.forget('s');
    expect([overlay.get('s', 'b'), overlay.entries('s'), overlay.generation('s')]).toEqual([undefined, [], 0]);
  });
});

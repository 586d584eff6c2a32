import { PassThrough } from 'node:stream';
import type { PendingInteraction } from '../client/index.js';
import { askedAction, describeRequest, Notes, permissionLine, printable, Progress, rateLimitedLine, shownState } from './cli-output.js';

const request: PendingInteraction = {
  requestId: 'r1',
  kind: 'permission',
  createdAt: '2026-12-03T12:00:00.000Z',
  action: { type: 'execute', title: 'echo ran > marker.txt' },
  options: [
    { optionId: 'proceed_once', kind: 'allow_once' },
    { optionId: 'reject', kind: 'reject_once' },
  ],
};

describe('printable', () => {
  it("keeps an agent's text from driving the terminal: no escape sequence, no bidi override, no line break", () => {
    expect(printable('rm -rf /\u001b[2K\u001b]0;owned\u0007 ok')).toBe('rm -rf /?[2K?]0;owned? ok');
    expect(printable('a\u202Eb\nc\td')).toBe('a?b c d');
    expect(printable('x'.repeat(300), 10)).toBe(`${'x'.repeat(9)}…`);
    expect(printable('plain')).toBe('plain');
  });
});

describe('permission lines', () => {
  it("name the tool's kind and title, and each option with its kind", () => {
    expect(describeRequest(request)).toBe('execute "echo ran > marker.txt"');
    expect(describeRequest({ ...request, action: {} })).toBe('"(untitled)"');
    expect(permissionLine(request)).toBe('r1\texecute "echo ran > marker.txt"\tproceed_once(allow_once) reject(reject_once)');
  });
});

describe('Progress on a terminal', () => {
  function terminal() {
    const stderr = Object.assign(new PassThrough(), { isTTY: true });
    let screen = '';
    // The escape character shown as ^[, as a terminal's caret notation does.
    stderr.on('data', (chunk: Buffer) => (screen += chunk.toString().replaceAll('\u001b', '^[')));
    return { stderr, screen: () => screen };
  }

  it('writes a note above the live line and draws the line again; leaves the terminal to a question until it is answered', async () => {
    const { stderr, screen } = terminal();
    const progress = new Progress(stderr);
    progress.update({ sessionId: 's', promptId: 'p', state: 'running', queuedAt: 1, startedAt: 1 });
    progress.note('permission r1: asked');
    expect(screen()).toMatch(/^\r\^\[\[2Krunning \d+\.\ds\r\^\[\[2Kpermission r1: asked\n\r\^\[\[2Krunning \d+\.\ds$/);
    let answer!: () => void;
    const asked = progress.pause(async () => {
      stderr.write('allow once? [y/N] ');
      // A change of state while the question is on screen is not drawn over it.
      progress.update({ sessionId: 's', promptId: 'p', state: 'queued', queuedAt: 1 });
      await new Promise<void>((resolve) => (answer = resolve));
    });
    const before = screen().length;
    await Promise.resolve();
    expect(screen().slice(before - 'allow once? [y/N] '.length)).toBe('allow once? [y/N] ');
    answer();
    await asked;
    expect(screen().slice(before)).toMatch(/^\r\^\[\[2Kqueued \d+\.\ds$/);
    progress.done();
  });
});

describe('askedAction', () => {
  it('says what the agent asks by the tool kind, and any other kind as using the tool', () => {
    expect(askedAction(request)).toBe('execute "echo ran > marker.txt"');
    expect(askedAction({ ...request, action: { type: 'edit', title: 'src/a.ts' } })).toBe('edit "src/a.ts"');
    expect(askedAction({ ...request, action: { type: 'switch_mode', title: 'plan' } })).toBe('use "plan"');
    expect(askedAction({ ...request, action: {} })).toBe('use "(untitled)"');
  });
});

describe('shownState', () => {
  it('says when a running turn waits on approval', () => {
    const running = { sessionId: 's', state: 'running', promptId: 'p', queuedAt: 1, startedAt: 2 } as const;
    expect(shownState(running)).toBe('running');
    expect(shownState({ ...running, pendingInteractions: [request] })).toBe('running, waits on approval');
    expect(shownState({ sessionId: 's', state: 'idle' })).toBe('idle');
  });
});

describe('a 429 waited out', () => {
  it('is one line naming the budget, the wait and the request', () => {
    expect(rateLimitedLine({ method: 'GET', path: '/session/s/turns/current', tier: 'read', retryAfterMs: 6_250 })).toBe(
      'rate limited (read budget): waiting 6.3s before GET /session/s/turns/current again',
    );
    expect(rateLimitedLine({ method: 'GET', path: '/capabilities', retryAfterMs: 1_000 })).toBe(
      'rate limited: waiting 1.0s before GET /capabilities again',
    );
  });

  it('goes above the progress line while a wait draws one, else on a line of its own', () => {
    const stderr = Object.assign(new PassThrough(), { isTTY: true });
    const written: string[] = [];
    stderr.on('data', (chunk: Buffer) => written.push(chunk.toString()));
    const notes = new Notes(stderr);
    notes.write('first');
    const progress = new Progress(stderr);
    progress.update({ state: 'queued', sessionId: 's', promptId: 'p' } as never);
    notes.progress = progress;
    notes.write('second');
    progress.done();
    expect(written[0]).toBe('first\n');
    expect(written.join('')).toContain('\r\u001b[2Ksecond\n');
  });
});

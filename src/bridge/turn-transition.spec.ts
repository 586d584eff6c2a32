import { TurnTransitionStream, type TurnTransition } from './turn-transition.js';

const transition = (promptId: string): TurnTransition => ({
  kind: 'admitted',
  sessionId: 's',
  promptId,
  status: { sessionId: 's', state: 'queued', promptId, queuedAt: 1 },
  waited: false,
});

describe('TurnTransitionStream', () => {
  it('calls observers in the order they subscribed; a throwing one is logged and harms no other', () => {
    const errors: string[] = [];
    const stream = new TurnTransitionStream({ error: (message) => errors.push(message) });
    const calls: string[] = [];
    stream.subscribe((t) => calls.push(`first ${t.promptId}`));
    stream.subscribe(() => {
      throw new RangeError('boom');
    });
    stream.subscribe((t) => calls.push(`third ${t.promptId}`));
    expect(() => stream.emit(transition('p1'))).not.toThrow();
    expect(calls).toEqual(['first p1', 'third p1']);
    expect(errors).toEqual(['turn observer failed: RangeError']);
  });

  it('removes an observer by its own handle; twice is harmless; one function subscribed twice is two observers', () => {
    const stream = new TurnTransitionStream({ error: () => undefined });
    const calls: string[] = [];
    const observer = (t: TurnTransition) => calls.push(t.promptId);
    const stopFirst = stream.subscribe(observer);
    stream.subscribe(observer);
    stream.emit(transition('p1'));
    stopFirst();
    stopFirst();
    stream.emit(transition('p2'));
    expect(calls).toEqual(['p1', 'p1', 'p2']);
  });

  it('delivers a transition emitted by an observer after the one in hand, to every observer in order', () => {
    const stream = new TurnTransitionStream({ error: () => undefined });
    const calls: string[] = [];
    // The first observer reacts to p1 by emitting p2 (a host closing the session from an observer, say).
    stream.subscribe((t) => {
      calls.push(`first ${t.promptId}`);
      if (t.promptId === 'p1') stream.emit(transition('p2'));
    });
    stream.subscribe((t) => calls.push(`second ${t.promptId}`));
    stream.emit(transition('p1'));
    expect(calls).toEqual(['first p1', 'second p1', 'first p2', 'second p2']);
  });

  it('keeps delivering after a nested emit whose observer throws', () => {
    const errors: string[] = [];
    const stream = new TurnTransitionStream({ error: (message) => errors.push(message) });
    const calls: string[] = [];
    stream.subscribe((t) => {
      if (t.promptId === 'p1') stream.emit(transition('p2'));
      else throw new RangeError('boom');
    });
    stream.subscribe((t) => calls.push(t.promptId));
    stream.emit(transition('p1'));
    stream.emit(transition('p3'));
    expect(calls).toEqual(['p1', 'p2', 'p3']);
    expect(errors).toEqual(['turn observer failed: RangeError', 'turn observer failed: RangeError']);
  });
});

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
});

import fc from 'fast-check';
import type { LooseStatus as TurnStatus } from '../../test/support/loose-status.js';
import { TerminalOverlay } from './terminal-overlay.js';

const entry = (promptId: string, combined = false) => ({
  status: { sessionId: 's', state: 'completed', promptId } as TurnStatus,
  combined,
});

describe('TerminalOverlay', () => {
  it('evicts the oldest past its capacity of 64', () => {
    const overlay = new TerminalOverlay(64);
    for (let i = 0; i < 65; i += 1) overlay.set(`p${i}`, entry(`p${i}`));
    expect(overlay.size).toBe(64);
    expect(overlay.get('p0')).toBeUndefined();
    expect(overlay.get('p1')).toBeDefined();
    expect(overlay.newest()?.status.promptId).toBe('p64');
  });

  it('keeps the place of a re-set key, so it is evicted in its original turn', () => {
    const overlay = new TerminalOverlay(3);
    overlay.set('a', entry('a'));
    overlay.set('b', entry('b'));
    overlay.set('a', entry('a', true), false);
    expect(overlay.newest()?.status.promptId).toBe('b');
    expect(overlay.get('a')?.combined).toBe(true);
    overlay.set('c', entry('c'));
    overlay.set('d', entry('d'));
    expect(overlay.keys()).toEqual(['b', 'c', 'd']);
  });

  it('behaves like a bounded insertion-ordered set of keys', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 20 }).map(String)), fc.integer({ min: 1, max: 8 }), (keys, capacity) => {
        const overlay = new TerminalOverlay(capacity);
        const model: string[] = [];
        for (const key of keys) {
          overlay.set(key, entry(key));
          if (!model.includes(key)) {
            model.push(key);
            if (model.length > capacity) model.shift();
          }
        }
        expect(overlay.keys()).toEqual(model);
      }),
    );
  });

  it('lets an entry join without becoming the newest, and forgets an evicted newest', () => {
    const overlay = new TerminalOverlay(2);
    overlay.set('a', entry('a'));
    overlay.set('old', entry('old'), false);
    expect(overlay.newest()?.status.promptId).toBe('a');
    overlay.set('b', entry('b'), false); // evicts a, the newest
    expect(overlay.newest()).toBeUndefined();
    overlay.set('old', entry('old', true), true);
    expect(overlay.newest()?.status.promptId).toBe('old');
  });

  it('clears everything', () => {
    const overlay = new TerminalOverlay(2);
    overlay.set('a', entry('a'));
    overlay.clear();
    expect(overlay.size).toBe(0);
    expect(overlay.newest()).toBeUndefined();
  });
});

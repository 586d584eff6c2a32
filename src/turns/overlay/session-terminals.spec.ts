import fc from 'fast-check';
import type { LooseStatus as TurnStatus } from '../../../test/support/loose-status.js';
import { SessionTerminals } from './session-terminals.js';

const entry = (promptId: string, combined = false) => ({
  status: { sessionId: 's', state: 'completed', promptId } as TurnStatus,
  combined,
});

describe('SessionTerminals', () => {
  it('evicts the oldest past its capacity of 64', () => {
    const overlay = new SessionTerminals(64);
    for (let i = 0; i < 65; i += 1) overlay.set(`p${i}`, entry(`p${i}`));
    expect(overlay.size).toBe(64);
    expect(overlay.get('p0')).toBeUndefined();
    expect(overlay.get('p1')).toBeDefined();
    expect(overlay.newest()?.status.promptId).toBe('p64');
  });

  it('keeps the place of a re-set key, so it is evicted in its original turn', () => {
    const overlay = new SessionTerminals(3);
    overlay.set('a', entry('a'));
    overlay.set('b', entry('b'));
    overlay.setReadBack('a', entry('a', true), false);
    expect(overlay.newest()?.status.promptId).toBe('b');
    expect(overlay.get('a')?.combined).toBe(true);
    overlay.set('c', entry('c'));
    overlay.set('d', entry('d'));
    expect(overlay.keys()).toEqual(['b', 'c', 'd']);
  });

  it('behaves like a bounded insertion-ordered set of keys', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 20 }).map(String)), fc.integer({ min: 1, max: 8 }), (keys, capacity) => {
        const overlay = new SessionTerminals(capacity);
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

  it('lets a read-back join without becoming the newest, and forgets an evicted newest', () => {
    const overlay = new SessionTerminals(2);
    overlay.setReadBack('old', entry('old', true), true);
    overlay.setReadBack('other', entry('other', true), false);
    expect(overlay.newest()?.status.promptId).toBe('old');
    overlay.setReadBack('third', entry('third', true), false); // evicts old, the newest
    expect(overlay.newest()).toBeUndefined();
    overlay.setReadBack('other', entry('other', true), true);
    expect(overlay.newest()?.status.promptId).toBe('other');
  });

  it('evicts read-backs before published statuses, whatever their age', () => {
    const overlay = new SessionTerminals(3);
    overlay.set('a', entry('a'));
    overlay.setReadBack('r1', entry('r1', true), false);
    overlay.set('b', entry('b'));
    overlay.setReadBack('r2', entry('r2', true), false); // evicts r1, not a
    expect(overlay.keys()).toEqual(['r2', 'a', 'b']);
    overlay.set('c', entry('c')); // evicts r2
    overlay.setReadBack('r3', entry('r3', true), true); // nothing to give way to it: joins and leaves at once
    expect(overlay.keys()).toEqual(['a', 'b', 'c']);
    expect(overlay.newest()).toBeUndefined();
    overlay.set('d', entry('d')); // only now does a published status go
    expect(overlay.keys()).toEqual(['b', 'c', 'd']);
  });

  it('keeps a read-back of a published key in the published tier, and promotes a read-back the bridge publishes', () => {
    const overlay = new SessionTerminals(2);
    overlay.set('a', entry('a'));
    overlay.setReadBack('a', entry('a', true), false);
    overlay.setReadBack('r', entry('r', true), false);
    overlay.setReadBack('s', entry('s', true), false); // evicts r, keeps a
    expect(overlay.get('a')?.combined).toBe(true);
    expect(overlay.keys()).toEqual(['s', 'a']);
    overlay.set('s', entry('s'));
    overlay.set('b', entry('b')); // evicts a, the oldest published
    expect(overlay.keys()).toEqual(['s', 'b']);
  });

  // The fuzzer's scenario: 100 prompts, then A, then B removed while queued (memory only); the 80 oldest are then polled.
  it('keeps a memory-only status and the queuedAt of published ones while old prompts are read back', () => {
    const overlay = new SessionTerminals(64);
    const published = (promptId: string, state = 'completed') => ({
      status: { sessionId: 's', state, promptId, queuedAt: 1 } as TurnStatus,
      combined: false,
    });
    for (let i = 0; i < 100; i += 1) overlay.set(`p${i}`, published(`p${i}`));
    overlay.set('A', published('A'));
    overlay.set('B', published('B', 'cancelled'));
    for (let i = 0; i < 80; i += 1) {
      const held = overlay.get(`p${i}`);
      // What TurnStatusService writes back: the merge keeps queuedAt; a persisted-only result has none.
      const status = { sessionId: 's', state: 'completed', promptId: `p${i}`, ...(held && { queuedAt: held.status.queuedAt }) };
      if (!held?.combined) overlay.setReadBack(`p${i}`, { status: status as TurnStatus, combined: true }, false);
    }
    expect(overlay.size).toBe(64);
    expect(overlay.get('B')?.status.state).toBe('cancelled');
    expect(overlay.newest()?.status.promptId).toBe('B');
    for (let i = 38; i < 100; i += 1) expect(overlay.get(`p${i}`)?.status.queuedAt).toBe(1);
  });

  it('evicts a published status only after `capacity` newer published ones, whatever is read back', () => {
    const op = fc.oneof(
      fc.constant({ kind: 'publish' as const }),
      fc.record({ kind: fc.constant('readBack' as const), key: fc.integer({ min: 0, max: 40 }), newest: fc.boolean() }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 200 }), fc.integer({ min: 1, max: 8 }), (ops, capacity) => {
        const overlay = new SessionTerminals(capacity);
        const publishedKeys: string[] = [];
        for (const next of ops) {
          if (next.kind === 'publish') {
            publishedKeys.push(`pub${publishedKeys.length}`);
            overlay.set(publishedKeys.at(-1)!, entry(publishedKeys.at(-1)!));
          } else {
            overlay.setReadBack(`old${next.key}`, entry(`old${next.key}`, true), next.newest);
          }
          expect(overlay.size).toBeLessThanOrEqual(capacity);
          for (const key of publishedKeys.slice(-capacity)) expect(overlay.get(key)?.combined).toBe(false);
          if (publishedKeys.length > 0 && next.kind === 'publish') expect(overlay.newest()?.status.promptId).toBe(publishedKeys.at(-1));
        }
      }),
    );
  });

  it('clears everything on a rewind, and bumps the generation', () => {
    const overlay = new SessionTerminals(2);
    overlay.set('a', entry('a'));
    overlay.rewound();
    expect(overlay.size).toBe(0);
    expect(overlay.newest()).toBeUndefined();
    expect(overlay.generation).toBe(1);
  });
});

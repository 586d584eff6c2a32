import { jsonDepth } from './json-depth.js';

describe('jsonDepth', () => {
  it('counts nesting of objects and arrays', () => {
    expect(jsonDepth('x')).toBe(0);
    expect(jsonDepth(null)).toBe(0);
    expect(jsonDepth({})).toBe(1);
    expect(jsonDepth({ prompt: [{ type: 'text', text: 'hi' }] })).toBe(3);
    expect(jsonDepth([[], [[[]]]])).toBe(4);
  });

  it('survives nesting far deeper than the stack, and stops at the limit', () => {
    let deep: unknown = [];
    for (let i = 0; i < 200_000; i += 1) deep = [deep];
    expect(jsonDepth(deep, 64)).toBe(65);
    expect(jsonDepth(deep)).toBe(200_001);
  });
});

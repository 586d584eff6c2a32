import fc from 'fast-check';
import secureJson from 'secure-json-parse';
import { stripPrototypeKeys } from './prototype-keys.js';

const strip = (text: string) => JSON.parse(text, stripPrototypeKeys);

describe('stripPrototypeKeys', () => {
  it('drops __proto__ keys and constructor.prototype at any depth, escaped or not', () => {
    expect(strip('{"__proto__":{"admin":true},"a":1}')).toEqual({ a: 1 });
    expect(strip('{"a":[{"b":{"__pr\\u006fto__":{"x":1},"c":2}}]}')).toEqual({ a: [{ b: { c: 2 } }] });
    expect(strip('{"constructor":{"prototype":{"x":1}},"d":3}')).toEqual({ d: 3 });
    const stripped = strip('{"__proto__":{"polluted":true}}');
    expect(Object.getPrototypeOf(stripped)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('keeps a constructor key without a prototype, and everything else', () => {
    expect(strip('{"constructor":"x","proto":1,"prototype":{}}')).toEqual({ constructor: 'x', proto: 1, prototype: {} });
    expect(strip('{"constructor":{"name":"y"}}')).toEqual({ constructor: { name: 'y' } });
  });

  it("agrees with Fastify's parser removing them", () => {
    const key = fc.constantFrom('__proto__', 'constructor', 'prototype', 'a', 'b');
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        fc.integer(),
        fc.constant(null),
        fc.array(tie('node'), { maxLength: 3 }),
        fc.array(fc.tuple(key, tie('node')), { maxLength: 4 }),
      ),
    })).node;
    // Objects as key/value lists written out by hand: a literal `__proto__` key must reach the JSON text.
    const write = (node: unknown): string =>
      Array.isArray(node) && node.every((entry) => Array.isArray(entry) && typeof entry[0] === 'string')
        ? `{${(node as Array<[string, unknown]>).map(([k, v]) => `${JSON.stringify(k)}:${write(v)}`).join(',')}}`
        : Array.isArray(node)
          ? `[${node.map(write).join(',')}]`
          : JSON.stringify(node);
    fc.assert(
      fc.property(value, (node) => {
        const text = write(node);
        expect(strip(text)).toEqual(secureJson.parse(text, undefined, { protoAction: 'remove', constructorAction: 'remove' }));
      }),
    );
  });
});

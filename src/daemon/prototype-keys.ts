/**
 * A `JSON.parse` reviver that drops `__proto__` keys, and `constructor` keys
 * whose value has a `prototype` — what Fastify's parser removes with
 * `onProtoPoisoning`/`onConstructorPoisoning: 'remove'` — so Express bodies
 * are stripped the same way and no key can reach an object's prototype chain.
 */
export function stripPrototypeKeys(key: string, value: unknown): unknown {
  if (key === '__proto__') return undefined;
  if (key === 'constructor' && value !== null && typeof value === 'object' && Object.hasOwn(value, 'prototype')) return undefined;
  return value;
}

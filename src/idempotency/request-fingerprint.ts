import { createHash } from 'node:crypto';

/**
 * JSON with object keys sorted at every depth, so two bodies that differ only
 * in key order (or whitespace) read the same. `undefined` members are dropped,
 * as `JSON.stringify` drops them.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : canonicalJson(item))).join(',')}]`;
  const members = Object.keys(value)
    .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
  return `{${members.join(',')}}`;
}

/** The fingerprint a key's first request is remembered by: SHA-256 (hex) of its canonical JSON body. */
export function requestFingerprint(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}

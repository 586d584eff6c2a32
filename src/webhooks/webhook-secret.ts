import { randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

/** A new signing secret: `whsec_` + base64 of 32 random bytes (Standard Webhooks' format). */
export function generateWebhookSecret(random: (size: number) => Buffer = randomBytes): string {
  return `${PREFIX}${random(32).toString('base64')}`;
}

/** True for a `whsec_` secret whose key is at least 24 bytes of valid base64. */
export function isWebhookSecret(value: string): boolean {
  if (!value.startsWith(PREFIX)) return false;
  const key = value.slice(PREFIX.length);
  return /^[A-Za-z0-9+/]+={0,2}$/.test(key) && key.length % 4 === 0 && Buffer.from(key, 'base64').length >= 24;
}

/** What a value handed in as a signing secret is, said without the value itself. */
function describeSecret(value: unknown): string {
  if (value === undefined || value === null) return String(value);
  if (typeof value !== 'string') return `a ${typeof value}`;
  if (value.trim() === '') return 'an empty string';
  if (!value.startsWith(PREFIX)) return `a string that does not start with ${PREFIX}`;
  return `a ${PREFIX} string whose key is not base64 of at least 24 bytes`;
}

/**
 * Refuses, at once, a signing secret that cannot verify anything — a missing
 * environment variable would otherwise answer every delivery 401. The
 * message names what was given, never the value.
 */
export function assertWebhookSecret(value: unknown, who: string): asserts value is string {
  if (typeof value === 'string' && isWebhookSecret(value)) return;
  throw new TypeError(
    `${who} needs the subscription's signing secret: the whsec_… string POST /session/:id/webhooks answered (got ${describeSecret(value)})`,
  );
}

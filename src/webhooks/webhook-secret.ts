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

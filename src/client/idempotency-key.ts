/** A fresh `Idempotency-Key`: a random UUID from the platform's Web Crypto (Node >= 20 and browsers). */
export function newIdempotencyKey(): string {
  if (typeof globalThis.crypto.randomUUID === 'function') return globalThis.crypto.randomUUID();
  // Insecure browser contexts have getRandomValues but not randomUUID.
  return Array.from(globalThis.crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
}

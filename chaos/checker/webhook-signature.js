// @ts-check
// Verifies a delivery as its receiver got it. The signature is computed by the standardwebhooks library; the
// timestamp is held to its five-minute tolerance against the time the receiver got it (the library would compare it
// with now, and a run is checked after it ends).
import { Webhook } from 'standardwebhooks';

/** The tolerance of the Standard Webhooks libraries, in seconds. */
export const TOLERANCE_S = 5 * 60;

/**
 * Why a delivery does not verify, or undefined when it does.
 * @param {string} secret the subscription's `whsec_…` secret
 * @param {{ t: number, headers?: Record<string, string>, raw?: string }} delivery
 * @returns {string | undefined}
 */
export function signatureProblem(secret, delivery) {
  /** @type {Record<string, string>} */
  const headers = {};
  for (const [key, value] of Object.entries(delivery.headers ?? {})) headers[key.toLowerCase()] = String(value);
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (!id || !timestamp || !signatures) return 'missing webhook-id, webhook-timestamp or webhook-signature';
  if (typeof delivery.raw !== 'string') return 'no body recorded';
  const seconds = Number(timestamp);
  if (!Number.isInteger(seconds)) return `webhook-timestamp ${timestamp} is not an integer`;
  if (Math.abs(delivery.t / 1000 - seconds) > TOLERANCE_S) return `webhook-timestamp ${timestamp} is more than 5 minutes off its arrival`;
  const expected = new Webhook(secret).sign(id, new Date(seconds * 1000), delivery.raw);
  const matches = signatures.split(' ').some((signature) => signature === expected);
  return matches ? undefined : 'no v1 signature matches the body';
}

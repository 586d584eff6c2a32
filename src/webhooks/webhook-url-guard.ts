import { isIP } from 'node:net';
import { apiError } from '../errors/api-errors.js';
import type { AddressPolicy } from './address-policy.js';
import type { HostResolver, ResolvedAddress } from './host-resolver.js';

/** A webhook URL with the address it is to be reached at, checked by the SSRF guard. */
export interface CheckedTarget {
  url: URL;
  address: ResolvedAddress;
}

/** Why a URL was refused: the reason goes into `400 webhook_url_forbidden` and the delivery log (never the URL's secrets). */
export class ForbiddenWebhookUrl extends Error {
  override readonly name = 'ForbiddenWebhookUrl';
  toApiError() {
    // The message says why (an unresolvable host is not a malformed URL); `reason` carries the same for programs.
    return apiError('webhook_url_forbidden', { reason: this.message }, { message: `The webhook URL was refused: ${this.message}` });
  }
}

const MAX_URL_LENGTH = 2048;

/**
 * Names the setting that lets such a host through, so a refused local receiver is one step from working.
 * The daemon's table spells it `TURNS_` + `WEBHOOK_ALLOW` (a spec holds the two together).
 */
export const REFUSED_ADDRESS =
  'host resolves to a loopback, private, link-local or other non-public address; to allow it, list the host or its range in ' +
  "TURNS_WEBHOOK_ALLOW (--webhook-allow; RuntimeModule's webhooks.allow)";

/** Parses a subscription URL: `http(s)`, no credentials, at most 2,048 characters. */
export function parseWebhookUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ForbiddenWebhookUrl('not a URL');
  }
  if (raw.length > MAX_URL_LENGTH) throw new ForbiddenWebhookUrl('URL too long');
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ForbiddenWebhookUrl('not http or https');
  if (url.username || url.password) throw new ForbiddenWebhookUrl('credentials in the URL (send a token instead)');
  return url;
}

/**
 * The SSRF guard (docs/webhooks.md): resolves the URL's host now and refuses it when
 * any address it has is one the policy forbids; the connection then goes to
 * the first address, the one checked here (no second lookup).
 */
export async function checkWebhookUrl(raw: string, policy: AddressPolicy, resolver: HostResolver): Promise<CheckedTarget> {
  const url = parseWebhookUrl(raw);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: ResolvedAddress[];
  if (isIP(host)) addresses = [{ address: host, family: isIP(host) === 6 ? 6 : 4 }];
  else {
    try {
      addresses = await resolver(host);
    } catch {
      throw new ForbiddenWebhookUrl('host does not resolve');
    }
  }
  if (addresses.length === 0) throw new ForbiddenWebhookUrl('host does not resolve');
  const refused = addresses.find((a) => !policy.permits(host, a.address));
  if (refused) throw new ForbiddenWebhookUrl(REFUSED_ADDRESS);
  return { url, address: addresses[0]! };
}

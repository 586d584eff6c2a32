import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';

/** Marks a request one node forwarded to another (docs/cluster.md#inv-route-5). */
export const FORWARDED_BY_HEADER = 'x-turns-forwarded-by';
/** On a forwarded answer: the node that received the request and forwarded it. */
export const VIA_HEADER = 'x-turns-via';

/** Headers of one connection, not of the message (RFC 9110 §7.6.1), plus those the proxy sets itself. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'expect',
  'host',
]);

/** Header names a `Connection` header lists as hop-by-hop for this connection. */
function connectionTokens(headers: IncomingHttpHeaders): Set<string> {
  const value = headers.connection;
  return new Set(
    (Array.isArray(value) ? value.join(',') : (value ?? ''))
      .split(',')
      .map((token) => token.trim().toLowerCase())
      .filter(Boolean),
  );
}

function endToEnd(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const listed = connectionTokens(headers);
  const kept: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || listed.has(name)) continue;
    kept[name] = value;
  }
  return kept;
}

/** The headers a forwarded request carries to the owner (docs/cluster.md#inv-route-6). */
export function forwardRequestHeaders(
  headers: IncomingHttpHeaders,
  via: { nodeId: string; remoteAddress?: string },
): Record<string, string | string[]> {
  const kept = endToEnd(headers);
  // The node the client reached judged its Origin (and answers with the CORS headers): the owner sees a peer's request.
  delete kept.origin;
  kept[FORWARDED_BY_HEADER] = via.nodeId;
  if (via.remoteAddress) {
    const prior = headers['x-forwarded-for'];
    kept['x-forwarded-for'] = prior ? `${Array.isArray(prior) ? prior.join(', ') : prior}, ${via.remoteAddress}` : via.remoteAddress;
  }
  return kept;
}

/** The owner's response headers as the client receives them: end-to-end ones only (the body is re-framed here). */
export function forwardResponseHeaders(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  return endToEnd(headers);
}

import { lookup } from 'node:dns/promises';

/**
 * One address a host name resolves to.
 *
 * @publicApi
 */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/**
 * Resolves a host name to every address it has (injected so tests can control DNS).
 *
 * @publicApi
 */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** The system resolver (`getaddrinfo`, as connections use), every address in its order. */
export const systemResolver: HostResolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));

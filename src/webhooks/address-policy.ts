import { isIP } from 'node:net';

/** What an IP address is, for the SSRF guard. */
export type AddressClass = 'public' | 'loopback' | 'private' | 'link-local' | 'unspecified' | 'reserved';

type V4 = [number, number, number, number];

function parseV4(address: string): V4 | undefined {
  const parts = address.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return undefined;
  return parts.map(Number) as V4;
}

/** The eight 16-bit groups of an IPv6 address (with `::` and a dotted IPv4 tail expanded). */
function parseV6(address: string): number[] | undefined {
  let text = address.toLowerCase().replace(/^\[|\]$/g, '');
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail) {
    const v4 = parseV4(tail[1]!);
    if (!v4) return undefined;
    text = `${text.slice(0, -tail[1]!.length)}${((v4[0] << 8) | v4[1]).toString(16)}:${((v4[2] << 8) | v4[3]).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groups = (half: string) => (half === '' ? [] : half.split(':'));
  const head = groups(halves[0]!);
  const rest = halves.length === 2 ? groups(halves[1]!) : [];
  const missing = 8 - head.length - rest.length;
  if ((halves.length === 1 && missing !== 0) || missing < 0) return undefined;
  const all = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...rest];
  if (!all.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return undefined;
  return all.map((g) => parseInt(g, 16));
}

function classifyV4([a, b]: V4): AddressClass {
  if (a === 0) return 'unspecified'; // 0.0.0.0/8, "this network"
  if (a === 127) return 'loopback';
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return 'private';
  if (a === 100 && b >= 64 && b <= 127) return 'private'; // carrier-grade NAT, RFC 6598
  if (a === 169 && b === 254) return 'link-local'; // cloud metadata lives here
  if (a >= 224) return 'reserved'; // multicast, reserved, broadcast
  return 'public';
}

const v4Of = (groups: number[], from: number): V4 => [
  groups[from]! >> 8,
  groups[from]! & 0xff,
  groups[from + 1]! >> 8,
  groups[from + 1]! & 0xff,
];

/**
 * The class of an IP address, IPv4 or IPv6 in any spelling; IPv4 carried in
 * IPv6 (mapped `::ffff:a.b.c.d`, compatible `::a.b.c.d`, NAT64 `64:ff9b::/96`,
 * 6to4 `2002::/16`) is classed by its IPv4. `undefined` for a non-address.
 */
export function classifyAddress(address: string): AddressClass | undefined {
  const v4 = parseV4(address);
  if (v4) return classifyV4(v4);
  const g = parseV6(address);
  if (!g) return undefined;
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 8)) return 'unspecified';
  if (zeros(0, 7) && g[7] === 1) return 'loopback';
  if (zeros(0, 5) && g[5] === 0xffff) return classifyV4(v4Of(g, 6)); // IPv4-mapped
  if (zeros(0, 6)) return classifyV4(v4Of(g, 6)); // IPv4-compatible (deprecated)
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return classifyV4(v4Of(g, 6)); // NAT64
  if (g[0] === 0x2002) return classifyV4(v4Of(g, 1)); // 6to4
  if ((g[0]! & 0xfe00) === 0xfc00) return 'private'; // unique local, RFC 4193
  if ((g[0]! & 0xffc0) === 0xfe80) return 'link-local';
  if ((g[0]! & 0xff00) === 0xff00) return 'reserved'; // multicast
  return 'public';
}

/** One entry of `TURNS_WEBHOOK_ALLOW`: a host name (exact, case-insensitive) or an address range. */
type AllowEntry = { host: string } | { bits: number[]; prefix: number };

/** The 128 bits of an address (IPv4 as IPv4-mapped IPv6), as a bit array. */
function bitsOf(address: string): number[] | undefined {
  const v4 = parseV4(address);
  const groups = v4 ? [0, 0, 0, 0, 0, 0xffff, (v4[0] << 8) | v4[1], (v4[2] << 8) | v4[3]] : parseV6(address);
  return groups?.flatMap((group) => Array.from({ length: 16 }, (_, i) => (group >> (15 - i)) & 1));
}

/**
 * The SSRF guard's rule (SPEC §12): public addresses pass; loopback, private,
 * link-local, unspecified and reserved ones only when the host or a CIDR
 * holding the address is listed in `TURNS_WEBHOOK_ALLOW`.
 */
export class AddressPolicy {
  private readonly entries: AllowEntry[];

  /** Parses the comma-separated list; throws on an entry that is neither a host nor a CIDR. */
  constructor(allow: readonly string[] = []) {
    this.entries = allow.map((raw) => AddressPolicy.entry(raw.trim()));
  }

  static entry(raw: string): AllowEntry {
    const slash = raw.indexOf('/');
    if (slash < 0) {
      if (isIP(raw.replace(/^\[|\]$/g, ''))) return AddressPolicy.entry(`${raw}/${isIP(raw.replace(/^\[|\]$/g, '')) === 4 ? 32 : 128}`);
      if (!/^[A-Za-z0-9.-]{1,253}$/.test(raw)) throw new Error(`not a host or CIDR: "${raw}"`);
      return { host: raw.toLowerCase() };
    }
    const address = raw.slice(0, slash).replace(/^\[|\]$/g, '');
    const length = Number(raw.slice(slash + 1));
    const bits = bitsOf(address);
    const max = parseV4(address) ? 32 : 128;
    if (!bits || !/^\d{1,3}$/.test(raw.slice(slash + 1)) || length > max) throw new Error(`not a host or CIDR: "${raw}"`);
    return { bits, prefix: max === 32 ? 96 + length : length };
  }

  /** True when `host` (as written in the URL) is listed by name. */
  allowsHost(host: string): boolean {
    const name = host.toLowerCase().replace(/\.$/, '');
    return this.entries.some((entry) => 'host' in entry && entry.host === name);
  }

  /** True when a connection to `address`, reached through `host`, may be made. */
  permits(host: string, address: string): boolean {
    const kind = classifyAddress(address);
    if (kind === undefined) return false;
    if (kind === 'public' || this.allowsHost(host)) return true;
    const bits = bitsOf(address)!;
    return this.entries.some((entry) => 'bits' in entry && bits.slice(0, entry.prefix).every((bit, i) => bit === entry.bits[i]));
  }
}

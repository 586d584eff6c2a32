import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/**
 * What an IP address is, for the SSRF guard: the name ipaddr.js's `range()`
 * gives it (`unicast` is a public address; `private`, `loopback`,
 * `linkLocal`, `carrierGradeNat`, `reserved`, `teredo`, ... are not).
 */
export type AddressClass = string;

/** IANA's global unicast space (RFC 4291 §2.4): the rest of IPv6 is special-purpose or reserved by the IETF. */
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

/**
 * Where an RFC 6052 address carries its IPv4, for each prefix length a
 * local-use NAT64 prefix (RFC 8215, inside `64:ff9b:1::/48`) may have: /48,
 * /56, /64, /96 (byte indexes; byte 8 is the "u" octet).
 */
const NAT64_LAYOUTS = [
  [6, 7, 9, 10],
  [7, 9, 10, 11],
  [9, 10, 11, 12],
  [12, 13, 14, 15],
] as const;

/** 0.0.0.0/8: what the zero padding of a layout that is not the translator's reads as; nothing is reached there. */
const THIS_NETWORK = ipaddr.IPv4.parseCIDR('0.0.0.0/8');

const v4At = (bytes: number[], at: readonly number[]) => new ipaddr.IPv4(at.map((i) => bytes[i]!));

/**
 * The IPv4 addresses an IPv6 address carries — mapped, translated (RFC 6145),
 * NAT64 (RFC 6052, RFC 8215), 6to4, Teredo (its server and its client) — or
 * `undefined` when it carries none. Empty when no IPv4 can be told: a
 * local-use NAT64 address whose every layout reads 0.0.0.0/8.
 */
function carriedIPv4(address: ipaddr.IPv6): ipaddr.IPv4[] | undefined {
  const bytes = address.toByteArray();
  switch (address.range() as string) {
    case 'ipv4Mapped':
    case 'rfc6145':
      return [v4At(bytes, [12, 13, 14, 15])];
    case 'rfc6052':
      // The well-known prefix is a /96. A local-use one may be any layout, and translators ignore the u octet and the
      // suffix: every layout is judged, but the ones that read zero padding.
      if (address.parts[2] === 0) return [v4At(bytes, [12, 13, 14, 15])];
      return NAT64_LAYOUTS.map((at) => v4At(bytes, at)).filter((v4) => !v4.match(THIS_NETWORK));
    case '6to4':
      return [v4At(bytes, [2, 3, 4, 5])];
    case 'teredo':
      return [v4At(bytes, [4, 5, 6, 7]), new ipaddr.IPv4(bytes.slice(12).map((b) => b ^ 0xff))];
    default:
      return undefined;
  }
}

/** The class of an address that carries no other: ipaddr.js's range, with IPv6 outside 2000::/3 as `reserved`. */
function rangeOf(address: Address): AddressClass {
  const range = address.range();
  if (range === 'unicast' && address.kind() === 'ipv6' && !(address as ipaddr.IPv6).match(GLOBAL_UNICAST_V6)) return 'reserved';
  return range;
}

/**
 * An IP address in the forms a URL's host or a resolver gives (IPv4 dotted
 * decimal only; IPv6 with or without brackets, a zone, a dotted IPv4 tail).
 * The tail is read here: ipaddr.js reads `::a.b.c.d` as IPv4-mapped, which it is not.
 */
function parseAddress(text: string): Address | undefined {
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return ipaddr.IPv4.parse(text);
  let v6 = text.replace(/^\[(.*)\]$/, '$1');
  const tail = /:([^:%]*\.[^:%]*)(%.*)?$/.exec(v6);
  if (tail) {
    if (!ipaddr.IPv4.isValidFourPartDecimal(tail[1]!)) return undefined;
    const [a, b, c, d] = ipaddr.IPv4.parse(tail[1]!).octets as [number, number, number, number];
    v6 = `${v6.slice(0, tail.index + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}${tail[2] ?? ''}`;
  }
  return ipaddr.IPv6.isValid(v6) ? ipaddr.IPv6.parse(v6) : undefined;
}

/** The addresses a connection to `address` ends up at, as the guard judges them: the IPv4 it carries, else itself. */
function judged(address: Address): Address[] {
  return (address.kind() === 'ipv6' && carriedIPv4(address as ipaddr.IPv6)) || [address];
}

/**
 * The class of an IP address, IPv4 or IPv6 in any spelling: `unicast` for a
 * public one. An IPv6 address that carries IPv4 is classed by that IPv4 (by
 * the first non-public one when it may carry several); `undefined` for a
 * non-address.
 */
export function classifyAddress(text: string): AddressClass | undefined {
  const address = parseAddress(text);
  if (!address) return undefined;
  const reached = judged(address);
  if (reached.length === 0) return address.range();
  return reached.map(rangeOf).find((range) => range !== 'unicast') ?? 'unicast';
}

/** One entry of `TURNS_WEBHOOK_ALLOW`: a host name (exact, case-insensitive) or an address range. */
type AllowEntry = { host: string } | { range: [Address, number] };

/**
 * The SSRF guard's rule (docs/webhooks.md): public unicast addresses pass; any other
 * (loopback, private, link-local, CGNAT, multicast, reserved, documentation,
 * benchmarking, ...) only when the host, or a CIDR holding the address or the
 * IPv4 it carries, is listed in `TURNS_WEBHOOK_ALLOW`.
 */
export class AddressPolicy {
  private readonly entries: AllowEntry[];

  /** Parses the comma-separated list; throws on an entry that is neither a host nor a CIDR. */
  constructor(allow: readonly string[] = []) {
    this.entries = allow.map((raw) => AddressPolicy.entry(raw.trim()));
  }

  static entry(raw: string): AllowEntry {
    const slash = raw.indexOf('/');
    const address = parseAddress(slash < 0 ? raw : raw.slice(0, slash));
    if (slash < 0 && !address) {
      if (!/^[A-Za-z0-9.-]{1,253}$/.test(raw)) throw new Error(`not a host or CIDR: "${raw}"`);
      return { host: raw.toLowerCase() };
    }
    const max = address?.kind() === 'ipv4' ? 32 : 128;
    const prefix = slash < 0 ? String(max) : raw.slice(slash + 1);
    if (!address || !/^\d{1,3}$/.test(prefix) || Number(prefix) > max) throw new Error(`not a host or CIDR: "${raw}"`);
    return { range: [address, Number(prefix)] };
  }

  /** True when `host` (as written in the URL) is listed by name. */
  allowsHost(host: string): boolean {
    const name = host.toLowerCase().replace(/\.$/, '');
    return this.entries.some((entry) => 'host' in entry && entry.host === name);
  }

  /** True when a connection to `address`, reached through `host`, may be made. */
  permits(host: string, address: string): boolean {
    const parsed = parseAddress(address);
    if (!parsed) return false;
    if (this.allowsHost(host) || this.lists(parsed)) return true;
    const reached = judged(parsed);
    return reached.length > 0 && reached.every((a) => rangeOf(a) === 'unicast' || this.lists(a));
  }

  /** True when a listed CIDR holds the address (an IPv4 address also as IPv4-mapped IPv6). */
  private lists(address: Address): boolean {
    const forms = address.kind() === 'ipv4' ? [address, (address as ipaddr.IPv4).toIPv4MappedAddress()] : [address];
    return this.entries.some(
      (entry) => 'range' in entry && forms.some((form) => form.kind() === entry.range[0].kind() && form.match(entry.range as never)),
    );
  }
}

import fc from 'fast-check';
import { AddressPolicy, classifyAddress } from './address-policy.js';

describe('classifyAddress', () => {
  // The class is ipaddr.js's range() name; only `unicast` (a public address) passes the guard unlisted.
  it.each([
    // public
    ['8.8.8.8', 'unicast'],
    ['172.32.0.1', 'unicast'],
    ['93.184.216.34', 'unicast'],
    ['2606:4700:4700::1111', 'unicast'],
    ['::ffff:8.8.8.8', 'unicast'],
    ['64:ff9b::8.8.8.8', 'unicast'],
    ['2002:0808:0808::1', 'unicast'],
    ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', 'unicast'], // Teredo: server 65.54.227.120, client 8.8.8.8
    // the usual suspects
    ['127.0.0.1', 'loopback'],
    ['127.255.1.2', 'loopback'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['[::1]', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['100.127.255.254', 'carrierGradeNat'],
    ['169.254.169.254', 'linkLocal'],
    ['fe80::1%eth0', 'linkLocal'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    // special-purpose ranges the old classifier called public (issue 36)
    ['198.18.0.1', 'reserved'], // benchmarking, RFC 2544
    ['198.19.255.255', 'reserved'],
    ['192.0.0.8', 'reserved'], // IETF protocol assignments
    ['192.0.2.1', 'reserved'], // TEST-NET-1
    ['198.51.100.7', 'reserved'], // TEST-NET-2
    ['203.0.113.9', 'reserved'], // TEST-NET-3
    ['2001:db8::1', 'reserved'], // IPv6 documentation
    ['fec0::1', 'deprecatedSiteLocal'],
    ['100::1', 'discard'],
    ['2001:2::1', 'benchmarking'],
    ['::7f00:1', 'reserved'], // IPv4-compatible (deprecated): outside 2000::/3
    ['::127.0.0.1', 'reserved'], // the same address, not IPv4-mapped (as ipaddr.js alone reads it)
    ['::8.8.8.8', 'reserved'],
    ['5f00::1', 'segmentRouting'],
    ['4000::1', 'reserved'], // unicast to ipaddr.js, but outside IANA's global unicast 2000::/3
    // IPv4 carried in IPv6, judged as that IPv4
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:a9fe:a9fe', 'linkLocal'],
    ['0:0:0:0:0:ffff:10.0.0.1', 'private'],
    ['::ffff:0:10.0.0.1', 'private'], // IPv4-translated, RFC 6145 (::ffff:0:0:0/96)
    ['::ffff:0:8.8.8.8', 'unicast'],
    ['64:ff9b::10.0.0.1', 'private'], // NAT64 well-known prefix
    ['64:ff9b::a9fe:a9fe', 'linkLocal'],
    ['64:ff9b:1::10.0.0.1', 'private'], // NAT64 local-use, RFC 8215, /96 layout
    ['64:ff9b:1::8.8.8.8', 'unicast'],
    ['64:ff9b:1:a9fe:a9:fe00::', 'linkLocal'], // the /48 layout of 169.254.169.254
    ['64:ff9b:1:a9fe:a9:fe00:808:808', 'linkLocal'], // ... with a public IPv4 in the /96 place
    ['64:ff9b:1:0:a9:fea9:fe00:0', 'linkLocal'], // the /64 layout of 169.254.169.254
    ['64:ff9b:1:a:b:1::', 'private'], // the /56 layout of 10.11.0.1
    ['64:ff9b:1:808:8:800::', 'unicast'], // the /48 layout of 8.8.8.8 (/56 and /64 read public addresses too)
    ['64:ff9b:1::', 'rfc6052'], // no IPv4 to tell
    ['2002:c0a8:0101::1', 'private'], // 6to4 of 192.168.1.1
    ['2002:7f00:1::', 'loopback'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'reserved'], // Teredo, RFC 4380's example: client 192.0.2.45
    ['2001:0:4136:e378:8000:63bf:f5ff:fffe', 'private'], // Teredo client 10.0.0.1
    ['2001:0:0a00:0001:8000:63bf:f7f7:f7f7', 'private'], // Teredo server 10.0.0.1
  ])('%s is %s', (address, expected) => {
    expect(classifyAddress(address)).toBe(expected);
  });

  it.each([
    ['localhost'],
    ['1.2.3'],
    ['256.1.1.1'],
    ['0x7f.0.0.1'],
    ['010.0.0.1'],
    ['::ffff:1.2.3'],
    ['::ffff:0x7f.0.0.1'],
    ['1::2::3'],
    ['12345::'],
    [''],
  ])('%j is not an address', (text) => {
    expect(classifyAddress(text)).toBeUndefined();
  });

  it('classes an IPv4 address the same in every IPv6 spelling that carries it (property)', () => {
    fc.assert(
      fc.property(fc.ipV4(), (v4) => {
        const [a, b, c, d] = v4.split('.').map(Number) as [number, number, number, number];
        const hex = `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
        const kind = classifyAddress(v4);
        for (const form of [
          `::ffff:${v4}`,
          `::FFFF:${hex}`,
          `0:0:0:0:0:ffff:${hex}`,
          `0000:0000:0000:0000:0000:ffff:${v4}`,
          `[::ffff:${v4}]`,
        ]) {
          expect(classifyAddress(form)).toBe(kind);
        }
      }),
    );
  });

  it('classes every spelling the URL parser accepts as the address it normalizes to (property)', () => {
    fc.assert(
      fc.property(fc.ipV4Extended(), (written) => {
        const host = new URL(`http://${written}/`).hostname;
        expect(classifyAddress(host)).toBeDefined();
        expect(classifyAddress(host)).toBe(classifyAddress(new URL(`http://${host}/`).hostname));
      }),
    );
    fc.assert(
      fc.property(fc.ipV6(), (written) => {
        const host = new URL(`http://[${written}]/`).hostname;
        expect(classifyAddress(host)).toBe(classifyAddress(written));
      }),
    );
  });

  it('never calls a private, loopback, link-local or CGNAT range public, in any IPv6 form that carries it (property)', () => {
    const inRange = (prefix: number[], size: number) =>
      fc.array(fc.integer({ min: 0, max: 255 }), { minLength: size, maxLength: size }).map((rest) => [...prefix, ...rest].join('.'));
    fc.assert(
      fc.property(
        fc.oneof(inRange([10], 3), inRange([127], 3), inRange([169, 254], 2), inRange([192, 168], 2), inRange([100, 64], 2)),
        (address) => {
          for (const form of [address, `::ffff:${address}`, `64:ff9b::${address}`, `64:ff9b:1::${address}`, `::ffff:0:${address}`]) {
            expect(classifyAddress(form)).not.toBe('unicast');
          }
        },
      ),
    );
  });
});

describe('AddressPolicy', () => {
  it('lets public addresses through and refuses the others unless allowed by host or CIDR', () => {
    const none = new AddressPolicy();
    expect(none.permits('example.com', '93.184.216.34')).toBe(true);
    expect(none.permits('localhost', '127.0.0.1')).toBe(false);
    expect(none.permits('internal.example', '10.0.0.7')).toBe(false);
    expect(none.permits('x', 'not-an-ip')).toBe(false);

    const allow = new AddressPolicy(['127.0.0.1', '10.0.0.0/8', 'hooks.internal', 'fd00::/8']);
    expect(allow.permits('localhost', '127.0.0.1')).toBe(true);
    expect(allow.permits('localhost', '::ffff:127.0.0.1')).toBe(true);
    expect(allow.permits('localhost', '127.0.0.2')).toBe(false);
    expect(allow.permits('a', '10.200.0.1')).toBe(true);
    expect(allow.permits('a', '11.0.0.1')).toBe(true);
    expect(allow.permits('a', '192.168.0.1')).toBe(false);
    expect(allow.permits('HOOKS.internal', '192.168.0.1')).toBe(true);
    expect(allow.permits('a', 'fd00::5')).toBe(true);
    expect(allow.permits('a', 'fc00::5')).toBe(false);
  });

  it("refuses the special-purpose ranges (issue 36's list) unless a listed range holds them, or the IPv4 they carry", () => {
    const none = new AddressPolicy();
    for (const address of [
      '64:ff9b:1::a00:1',
      '::ffff:0:a00:1',
      '198.18.0.1',
      '192.0.0.170',
      '192.0.2.1',
      '198.51.100.1',
      '203.0.113.1',
      'fec0::1',
      '100::1',
      '2001:0:4136:e378:8000:63bf:3fff:fdd2',
      '100.64.0.1',
      '224.0.0.1',
      '255.255.255.255',
      '0.0.0.0',
      '::',
    ]) {
      expect([address, none.permits('receiver.example', address)]).toEqual([address, false]);
    }
    expect(none.permits('receiver.example', '64:ff9b::808:808')).toBe(true);

    const lab = new AddressPolicy(['198.18.0.0/15', '10.0.0.0/8', 'fec0::/10', '2001::/32']);
    expect(lab.permits('a', '198.19.1.1')).toBe(true);
    expect(lab.permits('a', '::ffff:198.19.1.1')).toBe(true);
    expect(lab.permits('a', '64:ff9b::a00:1')).toBe(true); // the IPv4 it carries is listed
    expect(lab.permits('a', '64:ff9b:1::a00:1')).toBe(true);
    expect(lab.permits('a', '2002:a00:1::')).toBe(true);
    expect(lab.permits('a', 'fec0::1')).toBe(true);
    expect(lab.permits('a', '2001:0:4136:e378:8000:63bf:3fff:fdd2')).toBe(true); // listed as itself
    expect(lab.permits('a', '64:ff9b::c0a8:1')).toBe(false);
    expect(lab.permits('a', '192.0.2.1')).toBe(false);
  });

  it('refuses an entry that is neither a host nor a CIDR', () => {
    expect(() => new AddressPolicy(['10.0.0.0/40'])).toThrow();
    expect(() => new AddressPolicy(['exa mple'])).toThrow();
    expect(() => new AddressPolicy(['::1/129'])).toThrow();
    expect(() => new AddressPolicy(['10.0.0.0/x'])).toThrow();
    expect(() => new AddressPolicy(['::ffff:1.2.3/8'])).toThrow();
  });
});

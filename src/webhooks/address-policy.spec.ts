import fc from 'fast-check';
import { AddressPolicy, classifyAddress } from './address-policy.js';

describe('classifyAddress', () => {
  it.each([
    ['8.8.8.8', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.255.1.2', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.1', 'public'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['[::1]', 'loopback'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['fe80::1%eth0', 'link-local'],
    ['ff02::1', 'reserved'],
    ['2606:4700:4700::1111', 'public'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:a9fe:a9fe', 'link-local'],
    ['0:0:0:0:0:ffff:10.0.0.1', 'private'],
    ['::ffff:8.8.8.8', 'public'],
    ['::127.0.0.1', 'loopback'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['2002:c0a8:0101::1', 'private'],
  ])('%s is %s', (address, expected) => {
    expect(classifyAddress(address)).toBe(expected);
  });

  it.each([['localhost'], ['1.2.3'], ['256.1.1.1'], ['1::2::3'], ['12345::'], ['']])('%j is not an address', (text) => {
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

  it('never calls a private, loopback or link-local range public (property)', () => {
    const inRange = (prefix: number[], size: number) =>
      fc.array(fc.integer({ min: 0, max: 255 }), { minLength: size, maxLength: size }).map((rest) => [...prefix, ...rest].join('.'));
    fc.assert(
      fc.property(fc.oneof(inRange([10], 3), inRange([127], 3), inRange([169, 254], 2), inRange([192, 168], 2)), (address) => {
        expect(classifyAddress(address)).not.toBe('public');
        expect(classifyAddress(`::ffff:${address}`)).not.toBe('public');
      }),
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

  it('refuses an entry that is neither a host nor a CIDR', () => {
    expect(() => new AddressPolicy(['10.0.0.0/40'])).toThrow();
    expect(() => new AddressPolicy(['exa mple'])).toThrow();
    expect(() => new AddressPolicy(['::1/129'])).toThrow();
  });
});

import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { assertPublicLiteral, BlockedAddressError, createGuardedLookup, guardedLookup, isPublicAddress, type LookupFunction } from './safe-address.js';

/** Runs a lookup function the way `net.connect` does and reports what it answered. */
function runLookup(lookup: LookupFunction, hostname: string, options: { all?: boolean; family?: number } = {}) {
  return new Promise<{ err: NodeJS.ErrnoException | null; address: string | LookupAddress[]; family?: number }>((resolve) =>
    lookup(hostname, options, (err, address, family) => resolve({ err, address, family })),
  );
}

describe('SSRF address guard', () => {
  // One or more examples per refused range, each with its IPv4-mapped IPv6 form where there is one.
  const refused: Record<string, string[]> = {
    'loopback 127/8': ['127.0.0.1', '127.0.0.2', '127.255.255.254'],
    'RFC 1918 10/8': ['10.0.0.1', '10.255.255.255'],
    'RFC 1918 172.16/12': ['172.16.0.1', '172.16.5.4', '172.31.255.254'],
    'RFC 1918 192.168/16': ['192.168.0.1', '192.168.1.1'],
    'link-local 169.254/16 (cloud metadata)': ['169.254.169.254', '169.254.0.1'],
    'CGNAT 100.64/10': ['100.64.0.1', '100.127.255.254'],
    'benchmarking 198.18/15': ['198.18.0.1', '198.19.255.254'],
    'multicast 224/4': ['224.0.0.1', '239.255.255.250'],
    'unspecified 0/8': ['0.0.0.0', '0.1.2.3'],
    'broadcast and reserved 240/4': ['255.255.255.255', '240.0.0.1'],
    'documentation ranges': ['192.0.2.1', '198.51.100.1', '203.0.113.1'],
    'IPv6 loopback and unspecified': ['::1', '::'],
    'IPv6 unique-local fc00::/7': ['fc00::1', 'fd12:3456:789a::1'],
    'IPv6 link-local fe80::/10': ['fe80::1', 'febf::1'],
    'IPv6 multicast ff00::/8': ['ff02::1', 'ff0e::1'],
    'IPv6 site-local, NAT64, 6to4, Teredo': ['fec0::1', '64:ff9b::7f00:1', '2002:7f00:1::1', '2001:0:4136:e378::1'],
  };
  for (const [range, addresses] of Object.entries(refused)) {
    it(`refuses ${range}`, () => {
      for (const a of addresses) expect(isPublicAddress(a), a).toBe(false);
    });
  }

  it('judges IPv4-mapped IPv6 addresses as the IPv4 address they carry', () => {
    for (const a of Object.values(refused).flat()) {
      if (a.includes(':')) continue;
      expect(isPublicAddress(`::ffff:${a}`), `::ffff:${a}`).toBe(false);
    }
    // the hexadecimal spelling WHATWG URL parsing produces for [::ffff:127.0.0.1]
    expect(isPublicAddress('::ffff:7f00:1')).toBe(false);
    expect(isPublicAddress('::ffff:a9fe:a9fe')).toBe(false);
    expect(isPublicAddress('::ffff:93.184.216.34')).toBe(true);
  });

  it('allows public IPv4 and IPv6 unicast addresses', () => {
    for (const a of ['93.184.216.34', '1.1.1.1', '8.8.8.8', '100.63.255.255', '100.128.0.1', '172.32.0.1', '198.20.0.1', '169.253.255.255', '2606:4700:4700::1111', '2a00:1450:4001:81c::200e']) {
      expect(isPublicAddress(a), a).toBe(true);
    }
  });

  it('refuses what is not an address', () => {
    for (const a of ['not-an-ip', '', 'example.com', '1.2.3']) expect(isPublicAddress(a), a).toBe(false);
  });

  it('blocks a hostname that resolves to a private address', async () => {
    const { err } = await runLookup(guardedLookup, 'localhost');
    expect(err?.message).toMatch(/localhost resolves to .* private or reserved address/);
  });

  it('blocks a name when any one of its addresses is private, and answers like dns.lookup otherwise', async () => {
    const records: Record<string, LookupAddress[]> = {
      mixed: [
        { address: '93.184.216.34', family: 4 },
        { address: '10.0.0.7', family: 4 },
      ],
      public: [
        { address: '93.184.216.34', family: 4 },
        { address: '2606:4700:4700::1111', family: 6 },
      ],
    };
    const lookup = createGuardedLookup({ resolve: (host) => Promise.resolve(records[host] ?? []) });
    const mixed = await runLookup(lookup, 'mixed');
    expect(mixed.err).toBeInstanceOf(BlockedAddressError);
    expect(mixed.err?.message).toBe('mixed resolves to 10.0.0.7, a private or reserved address, which is not allowed');
    expect(await runLookup(lookup, 'public')).toEqual({ err: null, address: '93.184.216.34', family: 4 });
    expect(await runLookup(lookup, 'public', { all: true })).toEqual({ err: null, address: records.public, family: undefined });
    const none = await runLookup(lookup, 'nowhere');
    expect(none.err?.code).toBe('ENOTFOUND');
  });

  it('takes another policy (tests treat one loopback address as public)', async () => {
    const lookup = createGuardedLookup({ resolve: () => Promise.resolve([{ address: '127.0.0.2', family: 4 }]), isAllowed: (a) => a === '127.0.0.2' });
    expect((await runLookup(lookup, 'x')).err).toBeNull();
    expect(() => assertPublicLiteral('127.0.0.2', (a) => a === '127.0.0.2')).not.toThrow();
    expect(() => assertPublicLiteral('127.0.0.1', (a) => a === '127.0.0.2')).toThrow(/private or reserved/);
  });

  it('blocks literal private IPs, bracketed IPv6 included', () => {
    expect(() => assertPublicLiteral('[::1]')).toThrow('::1 is a private or reserved address, which is not allowed');
    expect(() => assertPublicLiteral('[::ffff:7f00:1]')).toThrow(/private or reserved/);
    expect(() => assertPublicLiteral('10.0.0.1')).toThrow(/private or reserved/);
    expect(() => assertPublicLiteral('example.com')).not.toThrow();
    expect(() => assertPublicLiteral('93.184.216.34')).not.toThrow();
  });
});

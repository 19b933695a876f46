import { describe, expect, it } from 'vitest';
import { assertPublicLiteral, guardedLookup, isPublicAddress } from './safe-address.js';

describe('SSRF address guard', () => {
  it('refuses loopback, private, link-local, CGNAT, multicast and IPv6 private ranges', () => {
    for (const a of ['127.0.0.1', '10.0.0.1', '172.16.5.4', '192.168.1.1', '169.254.169.254', '100.64.0.1', '224.0.0.1', '0.0.0.0', '::1', 'fc00::1', 'fe80::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', 'not-an-ip']) {
      expect(isPublicAddress(a), a).toBe(false);
    }
    for (const a of ['93.184.216.34', '1.1.1.1', '2606:4700:4700::1111']) expect(isPublicAddress(a), a).toBe(true);
  });

  it('blocks a hostname that resolves to a private address', async () => {
    const err = await new Promise<Error | null>((r) => guardedLookup('localhost', {}, (e) => r(e)));
    expect(err?.message).toMatch(/localhost resolves to .* private or reserved address/);
  });

  it('blocks literal private IPs, bracketed IPv6 included', () => {
    expect(() => assertPublicLiteral('[::1]')).toThrow(/private or reserved/);
    expect(() => assertPublicLiteral('10.0.0.1')).toThrow(/private or reserved/);
    expect(() => assertPublicLiteral('example.com')).not.toThrow();
  });
});

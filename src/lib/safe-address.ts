import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * The SSRF guard: which addresses a user-supplied URL may reach. Only globally routable unicast
 * addresses pass; loopback, private, link-local (cloud metadata), CGNAT, multicast, unique-local
 * and the other special ranges are refused. IPv4-mapped IPv6 addresses are judged as IPv4.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  return parsed.range() === 'unicast';
}

export class BlockedAddressError extends Error {
  readonly code = 'EBLOCKEDADDRESS';
  constructor(
    readonly hostname: string,
    readonly address: string,
  ) {
    super(`${hostname} resolves to ${address}, a private or reserved address, which is not allowed`);
    this.name = 'BlockedAddressError';
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `dns.lookup` replacement for socket connections: resolves, refuses the connection when any
 * resolved address is not public, and hands the checked address to the connect call itself, so
 * there is no window for DNS rebinding between the check and the connection.
 */
export function guardedLookup(hostname: string, options: { all?: boolean; family?: number | string }, callback: LookupCallback) {
  dnsLookup(hostname, { all: true, family: typeof options.family === 'number' ? options.family : 0 }, (err, addresses) => {
    if (err) return callback(err, []);
    const blocked = addresses.find((a) => !isPublicAddress(a.address));
    if (blocked) return callback(new BlockedAddressError(hostname, blocked.address), []);
    if (options.all) return callback(null, addresses);
    const first = addresses[0]!;
    callback(null, first.address, first.family);
  });
}

/** For literal IP hosts, which never go through DNS. */
export function assertPublicLiteral(hostname: string) {
  const bare = hostname.replace(/^\[|\]$/g, '');
  if (isIP(bare) && !isPublicAddress(bare)) throw new BlockedAddressError(hostname, bare);
}

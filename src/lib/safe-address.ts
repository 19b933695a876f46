import { promises as dns, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * The SSRF guard: which addresses a user-supplied URL may reach. Only globally routable unicast
 * addresses pass; loopback, private (RFC 1918), link-local (169.254/16, cloud metadata), CGNAT
 * (100.64/10), benchmarking (198.18/15) and the other reserved ranges, broadcast, multicast,
 * unspecified, IPv6 unique-local/link-local/site-local, NAT64, 6to4 and Teredo are refused.
 * IPv4-mapped IPv6 addresses (`::ffff:a.b.c.d`) are judged as the IPv4 address they carry.
 */
export function isPublicAddress(address: string): boolean {
  // Strict textual addresses only: ipaddr.js also reads legacy forms (`1.2.3`, `0x7f.1`) that a
  // resolver or socket might read differently, so those are never judged "public".
  if (isIP(address) === 0 || !ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  // ipaddr.js names every special-purpose range; whatever is not plain 'unicast' is refused.
  return parsed.range() === 'unicast';
}

/** Which resolved or literal addresses may be connected to (normally `isPublicAddress`). */
export type AddressPolicy = (address: string) => boolean;

/** hostname → every address it resolves to (`dns.lookup` with `all: true`). */
export type Resolver = (hostname: string, family?: number) => Promise<LookupAddress[]>;

export const systemResolver: Resolver = (hostname, family = 0) => dns.lookup(hostname, { all: true, family });

export class BlockedAddressError extends Error {
  readonly code = 'EBLOCKEDADDRESS';
  constructor(
    readonly hostname: string,
    readonly address: string,
  ) {
    super(
      hostname === address
        ? `${address} is a private or reserved address, which is not allowed`
        : `${hostname} resolves to ${address}, a private or reserved address, which is not allowed`,
    );
    this.name = 'BlockedAddressError';
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
export type LookupFunction = (hostname: string, options: { all?: boolean; family?: number | string }, callback: LookupCallback) => void;

/**
 * A `dns.lookup` replacement for socket connections (`net.connect({ lookup })`, undici's
 * `connect.lookup`): resolves, refuses the connection when ANY resolved address fails the policy,
 * and hands the checked address to the connect call itself, so there is no window for DNS
 * rebinding between the check and the connection.
 */
export function createGuardedLookup(opts: { resolve?: Resolver; isAllowed?: AddressPolicy } = {}): LookupFunction {
  const resolve = opts.resolve ?? systemResolver;
  const isAllowed = opts.isAllowed ?? isPublicAddress;
  return (hostname, options, callback) => {
    const family = typeof options.family === 'number' ? options.family : options.family === 'IPv6' ? 6 : options.family === 'IPv4' ? 4 : 0;
    resolve(hostname, family).then(
      (addresses) => {
        if (addresses.length === 0) {
          const err: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
          err.code = 'ENOTFOUND';
          return callback(err, []);
        }
        const blocked = addresses.find((a) => !isAllowed(a.address));
        if (blocked) return callback(new BlockedAddressError(hostname, blocked.address), []);
        if (options.all) return callback(null, addresses);
        const first = addresses[0]!;
        callback(null, first.address, first.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, []),
    );
  };
}

/** The guarded lookup with the system resolver and the public-address policy. */
export const guardedLookup: LookupFunction = createGuardedLookup();

/** For literal IP hosts (`10.0.0.1`, `[::1]`), which never go through DNS. */
export function assertPublicLiteral(hostname: string, isAllowed: AddressPolicy = isPublicAddress) {
  const bare = hostname.replace(/^\[|\]$/g, '');
  if (isIP(bare) && !isAllowed(bare)) throw new BlockedAddressError(bare, bare);
}

const DNS_LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/i;

/**
 * Whether a URL's hostname (as `new URL` gives it: lower-cased, IDNs in punycode) can name a
 * server at all: an IP literal, `localhost`, or a DNS name of two or more valid labels. What a
 * user typed that fails this is their mistake, answered without a DNS lookup.
 */
export function isPlausibleHostname(hostname: string): boolean {
  const bare = hostname.replace(/^\[|\]$/g, '');
  if (isIP(bare) !== 0) return true;
  if (hostname === 'localhost') return true;
  const name = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
  const labels = name.split('.');
  return name.length <= 253 && labels.length >= 2 && labels.every((l) => DNS_LABEL.test(l)) && !/^\d+$/.test(labels.at(-1)!);
}

/** `err` and its causes, outermost first (network errors wrap the interesting one a few levels down). */
export function causeChain(err: unknown): unknown[] {
  const chain: unknown[] = [];
  let e: unknown = err;
  for (let i = 0; i < 5 && e; i++) {
    chain.push(e);
    e = (e as { cause?: unknown }).cause;
  }
  return chain;
}

/** The `BlockedAddressError` a failed connection carries somewhere in its causes, if any. */
export function blockedCause(err: unknown): BlockedAddressError | undefined {
  return causeChain(err).find((e): e is BlockedAddressError => e instanceof BlockedAddressError);
}

/**
 * A failed connection's network error in words a caller can act on (`example.com refused the
 * connection`); undefined when it is none of the known ones.
 */
export function networkErrorReason(err: unknown, host: string): string | undefined {
  for (const e of causeChain(err)) {
    switch ((e as { code?: unknown }).code) {
      case 'ENOTFOUND':
      case 'EAI_NONAME':
      case 'EAI_AGAIN':
        return `${host} could not be resolved`;
      case 'ECONNREFUSED':
        return `${host} refused the connection`;
      case 'ECONNRESET':
        return `${host} reset the connection`;
      case 'EHOSTUNREACH':
      case 'ENETUNREACH':
        return `${host} is unreachable`;
      case 'UND_ERR_CONNECT_TIMEOUT':
        return `connecting to ${host} timed out`;
      case 'UND_ERR_SOCKET':
        return `${host} closed the connection`;
    }
  }
  return undefined;
}

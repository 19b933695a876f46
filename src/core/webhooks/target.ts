import { isIP } from 'node:net';
import { isPlausibleHostname, isPublicAddress, systemResolver, type AddressPolicy, type Resolver } from '../../lib/safe-address.js';

/**
 * Where a webhook may deliver: the outgoing-address rules of `upload-from-url`
 * (`core/media/remote-fetch.ts`), checked when a webhook is created or its URL changed, and again by
 * the delivery worker before every send (a name can be re-pointed at a private address later).
 * - http or https only, no credentials in the URL;
 * - a literal IP must pass the address policy (public unicast: no loopback, RFC 1918,
 *   link-local / cloud metadata, CGNAT, unique-local, …);
 * - a hostname is resolved and EVERY address it resolves to must pass.
 * `allowPrivate` (config ALLOW_PRIVATE_TARGETS) lifts the address policy only; the scheme and
 * credential rules stay. A check at send time should still connect through the guarded lookup
 * (`lib/safe-address.ts`) so DNS rebinding between this check and the connection has no gap.
 */
export interface DeliverableUrlOptions {
  /** config ALLOW_PRIVATE_TARGETS */
  allowPrivate: boolean;
  /** hostname → addresses; the system resolver by default (tests inject their own) */
  resolve?: Resolver;
  /** which addresses may be reached; `isPublicAddress` by default */
  isAllowed?: AddressPolicy;
}

/** Why a URL cannot be a webhook target; `message` is the reason, in words for the user. */
export class UndeliverableUrlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UndeliverableUrlError';
  }
}

/** Returns the parsed URL, or throws `UndeliverableUrlError` saying why it may not be called. */
export async function assertDeliverableUrl(input: string, opts: DeliverableUrlOptions): Promise<URL> {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new UndeliverableUrlError('not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UndeliverableUrlError(`only http and https URLs are allowed, not ${url.protocol.replace(/:$/, '')}`);
  }
  if (url.username || url.password) throw new UndeliverableUrlError('URLs with credentials are not allowed');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!isPlausibleHostname(url.hostname)) throw new UndeliverableUrlError(`${url.hostname} is not a valid host name`);
  if (opts.allowPrivate) return url;

  const isAllowed = opts.isAllowed ?? isPublicAddress;
  if (isIP(host) !== 0) {
    if (!isAllowed(host)) throw new UndeliverableUrlError(`${host} is a private or reserved address, which is not allowed`);
    return url;
  }
  const resolve = opts.resolve ?? systemResolver;
  let addresses: { address: string }[];
  try {
    addresses = await resolve(host);
  } catch {
    throw new UndeliverableUrlError(`${host} could not be resolved`);
  }
  if (addresses.length === 0) throw new UndeliverableUrlError(`${host} could not be resolved`);
  const blocked = addresses.find((a) => !isAllowed(a.address));
  if (blocked) throw new UndeliverableUrlError(`${host} resolves to ${blocked.address}, a private or reserved address, which is not allowed`);
  return url;
}

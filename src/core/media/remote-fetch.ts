import { Agent, fetch } from 'undici';
import { assertPublicLiteral, blockedCause, causeChain, createGuardedLookup, isPublicAddress, networkErrorReason, type AddressPolicy, type Resolver } from '../../lib/safe-address.js';

/**
 * Opens a user-supplied URL for streaming (`POST /upload-from-url`), SSRF-safe:
 * - only http(s), no credentials in the URL;
 * - every address the host resolves to must pass the address policy, and the socket connects to
 *   the address that was checked (the guarded lookup sits in the connection itself, so DNS
 *   rebinding has no gap to use); literal IPs, which skip DNS, are checked before any connection;
 * - redirects are followed by hand and every hop is checked the same way, at most `maxRedirects`;
 * - a connect timeout, and a total timeout that also covers reading the body;
 * - a declared `Content-Length` above `maxBytes` is refused before the body is read (the caller
 *   counts the bytes it actually reads against its own, possibly smaller, cap);
 * - a body that ends before its end (length mismatch, reset) fails instead of ending quietly.
 * Failures are `RemoteFetchError`s of one kind; callers map them to their own errors.
 */

export type RemoteFetchErrorKind =
  | 'invalid_url'
  | 'blocked'
  | 'too_many_redirects'
  | 'status'
  | 'unreachable'
  | 'timeout'
  | 'too_large'
  | 'ended_early'
  | 'aborted';

export class RemoteFetchError extends Error {
  constructor(
    readonly kind: RemoteFetchErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'RemoteFetchError';
  }
}

export interface RemoteFetchOptions {
  /** config ALLOW_PRIVATE_TARGETS: lifts the address policy only (schemes, redirects, sizes, times stay) */
  allowPrivateTargets: boolean;
  /** whole fetch, body included (config MEDIA_FETCH_TIMEOUT_SECONDS) */
  timeoutMs: number;
  connectTimeoutMs?: number;
  maxRedirects?: number;
  userAgent?: string;
  /** hostname → addresses; the system resolver by default (tests inject their own) */
  lookup?: Resolver;
  /** which addresses may be reached; `isPublicAddress` by default (tests may widen it) */
  isAllowedAddress?: AddressPolicy;
}

export interface RemoteFile {
  /** the URL the body came from, after redirects */
  url: URL;
  /** the declared length, when the server sent one */
  contentLength: number | undefined;
  /** the body; throws `RemoteFetchError` ('ended_early', 'timeout', 'aborted') when it cannot be read to its end */
  body: AsyncIterable<Buffer>;
  /** drops the rest of the body (the connection is closed); harmless once the body was read */
  cancel(): void;
  /** the answer's status: a 2xx, or 304 when the caller sent conditional headers (`headers`) and the resource did not change (empty body) */
  status: number;
  /** a response header (lower-case name), e.g. `etag`, `last-modified`, `content-type` */
  header(name: string): string | null;
}

/** What a caller may add to a fetch (feeds: conditional requests). */
export interface RemoteOpenOptions {
  maxBytes: number;
  signal?: AbortSignal;
  /** extra request headers (e.g. `if-none-match`); with a conditional header a 304 answer is returned, not thrown */
  headers?: Record<string, string>;
  /** the Accept header (default: images and videos first) */
  accept?: string;
}

export interface RemoteFetcher {
  /** Follows redirects to a 2xx answer and returns its body unread. `signal` cancels everything. */
  open(url: string, opts: RemoteOpenOptions): Promise<RemoteFile>;
  close(): Promise<void>;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** The network error of a failed connection, in words a caller can act on. */
function describeNetworkError(err: unknown, host: string): string {
  const known = networkErrorReason(err, host);
  if (known) return known;
  const last = causeChain(err).at(-1);
  return `${host} could not be fetched (${last instanceof Error ? last.message : String(last)})`;
}

export function createRemoteFetcher(opts: RemoteFetchOptions): RemoteFetcher {
  const maxRedirects = opts.maxRedirects ?? 5;
  const isAllowed: AddressPolicy = opts.allowPrivateTargets ? () => true : (opts.isAllowedAddress ?? isPublicAddress);
  const agent = new Agent({
    connect: { timeout: opts.connectTimeoutMs ?? 10_000, lookup: createGuardedLookup({ resolve: opts.lookup, isAllowed }) },
  });

  /** Scheme, credentials and literal-address checks of one hop, before anything is sent. */
  function checkUrl(url: URL) {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new RemoteFetchError('invalid_url', `only http and https URLs are allowed, not ${url.protocol.replace(/:$/, '')}`);
    }
    if (url.username || url.password) throw new RemoteFetchError('invalid_url', 'URLs with credentials are not allowed');
    try {
      assertPublicLiteral(url.hostname, isAllowed);
    } catch (e) {
      throw new RemoteFetchError('blocked', (e as Error).message);
    }
  }

  async function open(input: string, { maxBytes, signal, headers: extraHeaders, accept }: RemoteOpenOptions): Promise<RemoteFile> {
    const conditional = extraHeaders !== undefined && Object.keys(extraHeaders).some((h) => /^if-(none-match|modified-since)$/i.test(h));
    let url: URL;
    try {
      url = new URL(input);
    } catch {
      throw new RemoteFetchError('invalid_url', 'not a valid URL');
    }
    const timeout = AbortSignal.timeout(opts.timeoutMs);
    // `cancel()` aborts through this one, whatever state the body stream is in (locked or not).
    const local = new AbortController();
    const combined = AbortSignal.any(signal ? [local.signal, signal, timeout] : [local.signal, timeout]);
    const stopped = () =>
      timeout.aborted
        ? new RemoteFetchError('timeout', `the download did not finish within ${Math.round(opts.timeoutMs / 1000)} s`)
        : signal?.aborted
          ? new RemoteFetchError('aborted', 'the request was cancelled')
          : undefined;

    for (let hop = 0; ; hop++) {
      checkUrl(url);
      let res: Awaited<ReturnType<typeof fetch>>;
      try {
        res = await fetch(url, {
          method: 'GET',
          redirect: 'manual',
          signal: combined,
          dispatcher: agent,
          // identity: Content-Length is then the real size, and nothing is inflated behind our back
          headers: { ...extraHeaders, 'user-agent': opts.userAgent ?? 'Tidings', accept: accept ?? 'image/*, video/*;q=0.9, */*;q=0.5', 'accept-encoding': 'identity' },
        });
      } catch (err) {
        const blocked = blockedCause(err);
        if (blocked) throw new RemoteFetchError('blocked', blocked.message);
        throw stopped() ?? new RemoteFetchError('unreachable', describeNetworkError(err, url.host));
      }

      if (REDIRECT_STATUSES.has(res.status)) {
        await res.body?.cancel().catch(() => undefined);
        const location = res.headers.get('location');
        if (!location) throw new RemoteFetchError('status', `${url.host} answered ${res.status} without a Location`);
        if (hop >= maxRedirects) throw new RemoteFetchError('too_many_redirects', `too many redirects (more than ${maxRedirects})`);
        try {
          url = new URL(location, url);
        } catch {
          throw new RemoteFetchError('invalid_url', `${url.host} redirected to an invalid URL`);
        }
        continue;
      }
      if (res.status === 304 && conditional) {
        await res.body?.cancel().catch(() => undefined);
        const notModified = res;
        return { url, contentLength: 0, body: (async function* () {})(), cancel: () => undefined, status: 304, header: (name) => notModified.headers.get(name) };
      }
      if (res.status < 200 || res.status > 299) {
        await res.body?.cancel().catch(() => undefined);
        throw new RemoteFetchError('status', `${url.host} answered ${res.status}${res.statusText ? ` ${res.statusText}` : ''}`);
      }

      const declared = res.headers.get('content-length');
      const contentLength = declared !== null && /^\d+$/.test(declared.trim()) ? Number(declared) : undefined;
      if (contentLength !== undefined && contentLength > maxBytes) {
        local.abort();
        throw new RemoteFetchError('too_large', `the file is ${contentLength} bytes, more than the largest allowed (${maxBytes})`);
      }

      const stream = res.body;
      async function* body(): AsyncGenerator<Buffer> {
        if (!stream) return;
        try {
          for await (const chunk of stream as AsyncIterable<Uint8Array>) yield Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
        } catch (err) {
          throw stopped() ?? new RemoteFetchError('ended_early', `the download ended early (${describeNetworkError(err, url.host)})`);
        }
      }
      return {
        url,
        contentLength,
        body: body(),
        cancel: () => {
          local.abort();
        },
        status: res.status,
        header: (name) => res.headers.get(name),
      };
    }
  }

  return {
    open,
    async close() {
      await agent.close();
    },
  };
}

/** The file name a URL names: its last path segment, percent-decoded; null when there is none. */
export function fileNameOf(url: URL): string | null {
  const last = url.pathname.split('/').pop() ?? '';
  if (last === '') return null;
  let name: string;
  try {
    name = decodeURIComponent(last);
  } catch {
    name = last;
  }
  return name.length > 255 ? name.slice(0, 255) : name;
}

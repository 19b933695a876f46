import { Agent, fetch, FormData as UndiciFormData, type RequestInit } from 'undici';
import { assertPublicLiteral, blockedCause, causeChain, guardedLookup } from '../lib/safe-address.js';
import { describeNetworkFailure } from './http-errors.js';
import { PlatformError, type PlatformHttp, type PlatformRequest, type PlatformResponse, type SocketTarget } from './platform.js';

/**
 * The one outgoing HTTP client of every platform call: timeouts and cancellation, the
 * PLATFORM_ORIGINS rewrite (simulators, proxies), the SSRF guard for user-supplied hosts, and
 * the translation of network failures into `PlatformError`.
 */
export interface PlatformHttpOptions {
  /** origin → origin rewrites (config PLATFORM_ORIGINS) */
  origins: Map<string, string>;
  /** let user-supplied hosts reach private addresses (config ALLOW_PRIVATE_TARGETS) */
  allowPrivateTargets: boolean;
  timeoutMs: number;
  userAgent?: string;
}

export interface PlatformHttpClient {
  /** Sends `req`; `signal` cancels it (the client's timeout applies as well). */
  request(req: PlatformRequest, signal?: AbortSignal): Promise<PlatformResponse>;
  /** The URL a request to `url` really goes to (also applied to authorisation URLs handed to users). */
  rewriteUrl(url: string): string;
  /**
   * Where a WebSocket to `url` (ws:// or wss://) really goes, with the same rules as `request`:
   * the PLATFORM_ORIGINS rewrite, and for user-supplied hosts the SSRF guard (a literal private
   * address is refused here, `lookup` refuses a name resolving to one at connect time).
   */
  socketTarget(url: string, opts?: { untrustedHost?: boolean }): SocketTarget;
  close(): Promise<void>;
}

const MAX_REDIRECTS = 5;

/** Errors raised before any byte of the request left: safe to retry. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

function errorCode(err: unknown): string | undefined {
  for (const e of causeChain(err)) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

export function encodeBody(body: unknown, headers: Record<string, string>): RequestInit['body'] {
  if (body === undefined || body === null) return undefined;
  if (body instanceof FormData) {
    // Adapters build the global FormData; this undici's fetch wants its own class.
    const form = new UndiciFormData();
    for (const [key, value] of body.entries()) {
      if (typeof value === 'string') form.append(key, value);
      else form.append(key, value, value.name);
    }
    return form;
  }
  if (typeof body === 'string' || body instanceof Uint8Array || body instanceof URLSearchParams || body instanceof UndiciFormData || body instanceof Blob) {
    return body as RequestInit['body'];
  }
  if (typeof (body as { pipe?: unknown }).pipe === 'function' || typeof (body as { getReader?: unknown }).getReader === 'function') {
    return body as RequestInit['body'];
  }
  if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
  return JSON.stringify(body);
}

export function isStream(body: unknown): boolean {
  return !!body && (typeof (body as { pipe?: unknown }).pipe === 'function' || typeof (body as { getReader?: unknown }).getReader === 'function');
}

async function readBody(res: Awaited<ReturnType<typeof fetch>>): Promise<unknown> {
  const text = await res.text();
  if (text === '') return null;
  const type = res.headers.get('content-type') ?? '';
  if (type.includes('json') || /^\s*[[{]/.test(text)) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}

export function createPlatformHttp(opts: PlatformHttpOptions): PlatformHttpClient {
  const trusted = new Agent({ connect: { timeout: 10_000 } });
  const guarded = new Agent({ connect: { timeout: 10_000, lookup: guardedLookup } });

  function rewriteUrl(url: string): string {
    const u = new URL(url);
    const to = opts.origins.get(u.origin);
    if (!to) return url;
    return to + url.slice(u.origin.length);
  }

  /** Origins named in PLATFORM_ORIGINS are the operator's choice, so they are trusted. */
  function isOperatorOrigin(url: URL) {
    for (const target of opts.origins.values()) if (target === url.origin) return true;
    return false;
  }

  async function request(req: PlatformRequest, signal?: AbortSignal): Promise<PlatformResponse> {
    const headers: Record<string, string> = { 'user-agent': opts.userAgent ?? 'Tidings', ...req.headers };
    const body = encodeBody(req.body, headers);
    const timeout = AbortSignal.timeout(req.timeoutMs ?? opts.timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    let url = new URL(rewriteUrl(req.url));
    let method = req.method;
    let sendBody = body;
    for (let hop = 0; ; hop++) {
      const untrusted = req.untrustedHost === true && !opts.allowPrivateTargets && !isOperatorOrigin(url);
      if (untrusted) {
        if (url.protocol !== 'https:' && url.protocol !== 'http:') {
          throw new PlatformError('rejected', `Only http(s) URLs are allowed, not ${url.protocol}`);
        }
        try {
          assertPublicLiteral(url.hostname);
        } catch (e) {
          throw new PlatformError('rejected', (e as Error).message);
        }
      }
      let res;
      try {
        res = await fetch(url, {
          method,
          headers,
          body: sendBody,
          signal: combined,
          redirect: 'manual',
          dispatcher: untrusted ? guarded : trusted,
          ...(isStream(sendBody) ? { duplex: 'half' as const } : {}),
        });
      } catch (err) {
        const blocked = blockedCause(err);
        if (blocked) throw new PlatformError('rejected', blocked.message);
        const code = errorCode(err);
        // A host the user typed that does not exist is their mistake, not a platform outage.
        if (code === 'ENOTFOUND' && req.untrustedHost === true && !isOperatorOrigin(url)) {
          throw new PlatformError('rejected', `${url.hostname} could not be found (no such host)`);
        }
        // Where PLATFORM_ORIGINS sent the request elsewhere, the message says so (the operator's mapping may be what is wrong).
        const requested = new URL(req.url).host;
        const via = requested === url.host ? '' : `; PLATFORM_ORIGINS sends ${requested} there`;
        // the request's own limit, or the operation's (a TimeoutError on the caller's signal)
        if (timeout.aborted || (signal?.aborted && (signal.reason as Error | undefined)?.name === 'TimeoutError')) {
          throw new PlatformError('transient', `${url.host} did not answer in time (the ${req.method} request timed out)${via}`, { outcomeUnknown: method !== 'GET' });
        }
        if (signal?.aborted) throw new PlatformError('transient', 'Cancelled', { outcomeUnknown: method !== 'GET' });
        const failure = describeNetworkFailure(err, url.host);
        const sent = !(failure.code && NOT_SENT.has(failure.code));
        const networkError = new PlatformError('transient', `${failure.message}${via}`, { outcomeUnknown: sent && method !== 'GET' });
        // The system's own error (its code: ENOTFOUND, ECONNREFUSED…) stays the cause, for the logs.
        networkError.cause = err;
        throw networkError;
      }
      const location = res.headers.get('location');
      if (res.status >= 300 && res.status < 400 && location && hop < MAX_REDIRECTS) {
        await res.body?.cancel();
        url = new URL(location, url);
        if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST')) {
          method = 'GET';
          sendBody = undefined;
        }
        continue;
      }
      const out: Record<string, string> = {};
      res.headers.forEach((v, k) => (out[k] = v));
      return { status: res.status, headers: out, body: await readBody(res) };
    }
  }

  function socketTarget(raw: string, o: { untrustedHost?: boolean } = {}): SocketTarget {
    let url: URL;
    try {
      url = new URL(rewriteUrl(raw));
    } catch {
      throw new PlatformError('rejected', `${raw} is not a URL`);
    }
    if (url.protocol !== 'wss:' && url.protocol !== 'ws:') throw new PlatformError('rejected', `Only ws(s) URLs can be opened as WebSockets, not ${url.protocol}`);
    const untrusted = o.untrustedHost === true && !opts.allowPrivateTargets && !isOperatorOrigin(url);
    if (!untrusted) return { url: url.toString() };
    try {
      assertPublicLiteral(url.hostname);
    } catch (e) {
      throw new PlatformError('rejected', (e as Error).message);
    }
    return { url: url.toString(), lookup: guardedLookup };
  }

  return {
    rewriteUrl,
    request,
    socketTarget,
    async close() {
      await Promise.all([trusted.close(), guarded.close()]);
    },
  };
}

/** A client bound to one operation's cancellation signal (what adapters get in their context). */
export function withSignal(client: PlatformHttpClient, signal: AbortSignal): PlatformHttp {
  return { request: (req) => client.request(req, signal), socketTarget: (url, opts) => client.socketTarget(url, opts) };
}

import { PlatformError, type PlatformHttp, type PlatformRequest, type PlatformResponse } from '../../../platforms/platform.js';
import { ShortenerError } from './provider.js';

/**
 * What the three outside shorteners share: sending through the platforms' client with its
 * failures translated to `ShortenerError`, reading how long a 429 asks to wait, the kind of
 * refusal an HTTP status stands for, where a provider's API is, and a small concurrency limit
 * for providers without a batch endpoint for clicks.
 */

/** Sends `req`; network failures and timeouts become 'unavailable', a refused user-typed host 'rejected'. */
export async function send(http: PlatformHttp, req: PlatformRequest, provider: string): Promise<PlatformResponse> {
  try {
    return await http.request(req);
  } catch (e) {
    if (e instanceof PlatformError) {
      // 'rejected' from the client means the URL itself was refused (the SSRF guard, a host that does
      // not exist, not http(s)): the organisation's API URL setting is wrong, retrying will not help.
      if (e.kind === 'rejected') throw new ShortenerError('rejected', `${provider}: ${e.message}`, undefined, 'apiUrl');
      throw new ShortenerError('unavailable', `${provider} could not be reached: ${e.message}`);
    }
    throw e;
  }
}

/**
 * Seconds a rate-limited answer asks to wait: `Retry-After` (seconds or an HTTP date), else a reset
 * header — `X-RateLimit-Reset` is epoch seconds at Dub, `RateLimit-Reset` (IETF draft) is seconds left.
 */
export function retryAfterOf(headers: Record<string, string>, now = Date.now()): number | undefined {
  const ra = headers['retry-after']?.trim();
  if (ra) {
    if (/^\d+$/.test(ra)) return Number(ra);
    const at = Date.parse(ra);
    if (!Number.isNaN(at)) return Math.max(0, Math.ceil((at - now) / 1000));
  }
  for (const name of ['x-ratelimit-reset', 'ratelimit-reset']) {
    const v = headers[name]?.trim();
    if (!v || !/^\d+$/.test(v)) continue;
    const n = Number(v);
    // a value this large is a point in time (epoch seconds), not a number of seconds to wait
    return n > 1_000_000_000 ? Math.max(0, n - Math.floor(now / 1000)) : n;
  }
  return undefined;
}

/**
 * The ShortenerError an unsuccessful answer stands for: 401/403 the key, 429 and 5xx the provider
 * (worth a retry), any other 4xx the request. `message` is what the provider said.
 */
export function errorForStatus(provider: string, res: PlatformResponse, message: string): ShortenerError {
  const said = message ? `: ${message}` : '';
  if (res.status === 401 || res.status === 403) return new ShortenerError('auth', `${provider} refused the API key (${res.status})${said}`, undefined, 'apiKey');
  if (res.status === 429) return new ShortenerError('unavailable', `${provider} rate limited the request (429)${said}`, retryAfterOf(res.headers));
  if (res.status >= 500) return new ShortenerError('unavailable', `${provider} failed (${res.status})${said}`);
  return new ShortenerError('rejected', `${provider} refused the request (${res.status})${said}`);
}

/** An answer that is not what the provider's API documents: the provider is misbehaving, try later. */
export function malformed(provider: string, what: string): ShortenerError {
  return new ShortenerError('unavailable', `${provider} answered something that is not ${what}`);
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A non-negative whole number of clicks, or undefined. */
export function countOf(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : undefined;
}

/**
 * Where the provider's API is: the organisation's `apiUrl` (untrusted: the SSRF guard applies) or
 * the provider's public one. Trailing slashes go; a URL with credentials, a query or a fragment, or
 * not http(s), is refused.
 */
export function apiBase(provider: string, apiUrl: string | null, publicUrl: string): { base: string; untrustedHost: boolean } {
  if (apiUrl === null || apiUrl.trim() === '') return { base: publicUrl, untrustedHost: false };
  let u: URL;
  try {
    u = new URL(apiUrl.trim());
  } catch {
    throw new ShortenerError('rejected', `${provider}: the API URL ${JSON.stringify(apiUrl)} is not a URL`, undefined, 'apiUrl');
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new ShortenerError('rejected', `${provider}: the API URL must be http(s), not ${u.protocol}`, undefined, 'apiUrl');
  if (u.username || u.password || u.search || u.hash) {
    throw new ShortenerError('rejected', `${provider}: the API URL must have no credentials, query or fragment`, undefined, 'apiUrl');
  }
  return { base: `${u.origin}${u.pathname.replace(/\/+$/, '')}`, untrustedHost: true };
}

/** Runs `fn` over `items`, at most `limit` at once, keeping the order of the results. */
export async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  async function worker() {
    // after a failure the others stop taking new items (the whole call fails anyway)
    while (!failed && next < items.length) {
      const i = next++;
      try {
        out[i] = await fn(items[i]!);
      } catch (e) {
        failed = true;
        throw e;
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

import { PlatformError, type PlatformResponse } from './platform.js';

/**
 * Helpers that turn a platform's answer into a `PlatformError`, for the adapters' own `errors.ts`
 * to build on. Many platforms report errors inside an HTTP 200 body: adapters check the body
 * first, then fall back to `errorFromResponse` for the status.
 */

/** The first human-readable message found in the usual places of an error body. */
export function extractMessage(body: unknown): string | undefined {
  if (typeof body === 'string') return body.trim().slice(0, 500) || undefined;
  if (!body || typeof body !== 'object') return undefined;
  const b = body as Record<string, unknown>;
  const candidates: unknown[] = [
    (b.error as Record<string, unknown> | undefined)?.message,
    b.error_description,
    b.detail,
    b.message,
    b.description,
    Array.isArray(b.errors) ? (b.errors[0] as Record<string, unknown> | undefined)?.message : undefined,
    typeof b.error === 'string' ? b.error : undefined,
    b.title,
  ];
  for (const c of candidates) if (typeof c === 'string' && c.trim() !== '') return c.trim().slice(0, 500);
  return undefined;
}

function parseSecondsOrDate(value: string, now: number): number | undefined {
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Number(value);
  const t = Date.parse(value);
  return Number.isNaN(t) ? undefined : Math.max(0, (t - now) / 1000);
}

/**
 * Seconds to wait before the next call, from whichever header the platform uses: `Retry-After`
 * (seconds or HTTP date), `x-rate-limit-reset` (X: epoch seconds), `ratelimit-reset` and
 * `x-ratelimit-reset` (seconds, or epoch seconds when the value is that large).
 */
export function retryAfterSeconds(headers: Record<string, string>, now = Date.now()): number | undefined {
  const retryAfter = headers['retry-after'];
  if (retryAfter !== undefined) {
    const s = parseSecondsOrDate(retryAfter, now);
    if (s !== undefined) return Math.ceil(s);
  }
  for (const name of ['x-rate-limit-reset', 'ratelimit-reset', 'x-ratelimit-reset']) {
    const v = headers[name];
    if (v === undefined || !/^\d+(\.\d+)?$/.test(v.trim())) continue;
    const n = Number(v);
    // Values past 1e9 are epoch seconds, smaller ones a delay.
    return Math.max(0, Math.ceil(n > 1e9 ? n - now / 1000 : n));
  }
  return undefined;
}

/**
 * The default classification of an HTTP failure: 401 → `auth_expired` (refresh, then reconnect
 * if that fails), 429 → `rate_limited`, 5xx → `transient`, any other 4xx → `rejected` with the
 * platform's own message. Returns undefined for a 2xx/3xx answer.
 */
export function errorFromResponse(res: PlatformResponse, now = Date.now()): PlatformError | undefined {
  if (res.status < 400) return undefined;
  const message = extractMessage(res.body) ?? `HTTP ${res.status}`;
  if (res.status === 401) return new PlatformError('auth_expired', message, { status: 401 });
  if (res.status === 429) {
    return new PlatformError('rate_limited', message, { status: 429, retryAfterSeconds: retryAfterSeconds(res.headers, now) });
  }
  // A 503 may say when to come back (Retry-After), and the retry then waits at least that long.
  if (res.status >= 500) return new PlatformError('transient', message, { status: res.status, retryAfterSeconds: retryAfterSeconds(res.headers, now) });
  return new PlatformError('rejected', message, { status: res.status });
}

/** Throws the classified error of a failed answer; returns the answer otherwise. */
export function ensureOk(res: PlatformResponse, now = Date.now()): PlatformResponse {
  const err = errorFromResponse(res, now);
  if (err) throw err;
  return res;
}

/** A network failure in words: what happened, naming the host, and the system's code for the logs. */
export interface NetworkFailure {
  message: string;
  /** the code Node or undici gave (`ENOTFOUND`, `ECONNREFUSED`, `CERT_HAS_EXPIRED`…), if any */
  code?: string;
}

const TLS_WORDS: Record<string, string> = {
  CERT_HAS_EXPIRED: 'its certificate has expired',
  CERT_NOT_YET_VALID: 'its certificate is not valid yet',
  CERT_REVOKED: 'its certificate was revoked',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'its certificate is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'its certificate chain has a self-signed certificate',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its certificate could not be verified',
  UNABLE_TO_GET_ISSUER_CERT: 'its certificate could not be verified (unknown issuer)',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'its certificate could not be verified (unknown issuer)',
  ERR_TLS_CERT_ALTNAME_INVALID: 'its certificate is for another name',
  ERR_SSL_WRONG_VERSION_NUMBER: 'it does not speak TLS on that port',
  EPROTO: 'the TLS handshake failed',
};

function wordsFor(code: string, host: string): string | undefined {
  switch (code) {
    case 'ENOTFOUND':
    case 'EAI_NONAME':
    case 'EAI_NODATA':
      return `Could not find the host ${host} (DNS lookup failed: no such host)`;
    case 'EAI_AGAIN':
      return `Could not look up the host ${host} (DNS lookup failed; the name server did not answer)`;
    case 'ECONNREFUSED':
      return `${host} refused the connection (nothing is listening there)`;
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
    case 'EPIPE':
      return `The connection to ${host} was closed unexpectedly`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'EHOSTDOWN':
    case 'ENETDOWN':
      return `${host} cannot be reached from this server (no network route to it)`;
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
      return `Connecting to ${host} timed out`;
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
      return `${host} stopped answering (timed out)`;
  }
  const tls = TLS_WORDS[code] ?? (code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_') ? 'the TLS handshake failed' : undefined);
  return tls && `The secure connection to ${host} failed: ${tls}`;
}

/**
 * A failed request's network error (a chain of causes from undici and Node) in plain words naming
 * the host: "Could not find the host api.example.com (DNS lookup failed: no such host)", never a bare
 * `ENOTFOUND`. The code is kept apart for logs and details.
 */
export function describeNetworkFailure(err: unknown, host: string): NetworkFailure {
  const chain: unknown[] = [];
  for (let e: unknown = err, i = 0; i < 6 && e; i++, e = (e as { cause?: unknown }).cause) chain.push(e);
  const codes = chain.map((e) => (e as { code?: unknown }).code).filter((c): c is string => typeof c === 'string');
  for (const code of codes) {
    const message = wordsFor(code, host);
    if (message) return { message, code };
  }
  const innermost = chain.at(-1);
  const detail = innermost instanceof Error && innermost.message && innermost.message !== 'fetch failed' ? `: ${innermost.message}` : '';
  return { message: `The request to ${host} failed${detail}`, ...(codes[0] ? { code: codes[0] } : {}) };
}

import { retryAfterSeconds } from '../http-errors.js';
import { PlatformError, type PlatformResponse } from '../platform.js';

/**
 * Tumblr API v2 answers every call with `{ meta: { status, msg }, response, errors? }`; a failure
 * carries `errors: [{ title, code, detail }]` and the same status as the HTTP answer. Rate limits
 * are 429 with `X-Ratelimit-Perday-*` / `X-Ratelimit-Perhour-*` headers (limit, remaining, reset
 * in seconds). Tumblr's own codes (reference, from Postiz): 8001 content format, 8002 reblog
 * parent, 8004 daily media limit, 8005 rejected media, 8008 video in a reblog, 8010 still
 * transcoding, 8011 daily video limit, 8016, 8022 queue full, 8023 daily post limit → final;
 * 8006 / 8009 upload errors → worth retrying.
 */
export interface TumblrErrorBody {
  meta?: { status?: number; msg?: string };
  errors?: { title?: string; code?: number; detail?: string }[];
}

/** Tumblr's wait when a 429 says nothing usable. */
export const DEFAULT_RETRY_AFTER_SECONDS = 60;
/** Upload failures Tumblr reports that succeed when tried again. */
const RETRYABLE_CODES = new Set([8006, 8009]);

function bodyOf(res: PlatformResponse): TumblrErrorBody {
  return typeof res.body === 'object' && res.body !== null ? res.body : {};
}

const num = (v: string | undefined) => (v !== undefined && /^\d+(\.\d+)?$/.test(v.trim()) ? Number(v) : undefined);

/**
 * Seconds until the limit that ran out resets: `Retry-After` when sent, else the hourly or daily
 * window whose `remaining` is 0 (`reset` is a delay in seconds), else the default.
 */
export function tumblrRetryAfter(headers: Record<string, string>, now = Date.now()): number {
  const generic = headers['retry-after'] !== undefined ? retryAfterSeconds({ 'retry-after': headers['retry-after'] }, now) : undefined;
  if (generic !== undefined && generic > 0) return generic;
  for (const window of ['perhour', 'perday']) {
    const remaining = num(headers[`x-ratelimit-${window}-remaining`]);
    const reset = num(headers[`x-ratelimit-${window}-reset`]);
    if (remaining === 0 && reset !== undefined && reset > 0) return Math.ceil(reset);
  }
  return DEFAULT_RETRY_AFTER_SECONDS;
}

/** The words users read: the first error's detail (or title), else `meta.msg`. */
export function tumblrMessage(body: TumblrErrorBody, fallback: string): string {
  const e = body.errors?.[0];
  const text = e?.detail?.trim() || e?.title?.trim() || body.meta?.msg?.trim() || fallback;
  return text.length > 500 ? `${text.slice(0, 499)}…` : text;
}

/**
 * Classifies a Tumblr answer; undefined when it succeeded. The body's `meta.status` is read
 * before the HTTP status (an error the body reports under HTTP 200 is still an error).
 * `canRefresh`: the channel holds a refresh token, so a refused token is renewed first.
 */
export function tumblrError(res: PlatformResponse, opts: { now?: number; canRefresh?: boolean } = {}): PlatformError | undefined {
  const body = bodyOf(res);
  const metaStatus = typeof body.meta?.status === 'number' ? body.meta.status : undefined;
  const status = metaStatus !== undefined && metaStatus >= 400 ? metaStatus : res.status;
  if (status < 400) return undefined;
  const message = tumblrMessage(body, typeof res.body === 'string' && res.body.trim() ? res.body.trim().slice(0, 300) : `Tumblr error ${status}`);
  const code = body.errors?.[0]?.code;
  const details = { status, ...(typeof code === 'number' ? { platformCode: String(code) } : {}) };

  if (status === 401) {
    if (opts.canRefresh === false) return new PlatformError('reconnect_required', `${message} (no refresh token is stored: reconnect the channel)`, details);
    return new PlatformError('auth_expired', message, details);
  }
  if (status === 429) return new PlatformError('rate_limited', message, { ...details, retryAfterSeconds: tumblrRetryAfter(res.headers, opts.now) });
  if (status >= 500) return new PlatformError('transient', message, { ...details, retryAfterSeconds: retryAfterSeconds(res.headers, opts.now) });
  if (typeof code === 'number' && RETRYABLE_CODES.has(code)) return new PlatformError('transient', message, details);
  // A token without the scope the call needs: only a new authorisation grants it.
  if (status === 403 && /scope/i.test(message)) return new PlatformError('reconnect_required', message, details);
  return new PlatformError('rejected', message, details);
}

/** Throws the classified error of a failed answer; returns the answer otherwise. */
export function tumblrOk(res: PlatformResponse, opts: { now?: number; canRefresh?: boolean } = {}): PlatformResponse {
  const err = tumblrError(res, opts);
  if (err) throw err;
  return res;
}

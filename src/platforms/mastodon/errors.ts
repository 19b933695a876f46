import { extractMessage, retryAfterSeconds } from '../http-errors.js';
import { PlatformError, type PlatformResponse } from '../platform.js';

/**
 * Mastodon answers errors as `{ error: '…' }` (plus `error_description` from the OAuth
 * endpoints) with a meaningful HTTP status; it never reports an error under HTTP 200.
 */

/** 403 messages that no retry can get past: the account or the grant must change. */
const RECONNECT_403 = [/login is currently disabled/i, /account is (currently )?suspended/i, /outside the authorized scopes/i, /must confirm your e-?mail/i, /pending approval/i];

/**
 * Seconds until `X-RateLimit-Reset`, which Mastodon sends as an ISO 8601 time (not epoch seconds
 * as most APIs do), falling back to `Retry-After`. At least 1: a 429 always means "not now".
 */
export function mastodonRetryAfter(headers: Record<string, string>, now: number): number | undefined {
  const reset = headers['x-ratelimit-reset'];
  if (reset !== undefined) {
    const at = Date.parse(reset);
    if (!Number.isNaN(at)) return Math.max(1, Math.ceil((at - now) / 1000));
  }
  const fallback = retryAfterSeconds(headers, now);
  return fallback === undefined ? undefined : Math.max(1, fallback);
}

/** The classified error of a failed Mastodon answer, undefined for a success. */
export function mastodonError(res: PlatformResponse, now = Date.now()): PlatformError | undefined {
  if (res.status < 400) return undefined;
  const message = extractMessage(res.body) ?? `Mastodon answered HTTP ${res.status}`;
  const status = res.status;
  // Mastodon tokens never expire and cannot be refreshed: 401 ("The access token is invalid",
  // "… was revoked") means the user has to authorise again.
  if (status === 401) return new PlatformError('reconnect_required', message, { status });
  if (status === 403 && RECONNECT_403.some((r) => r.test(message))) return new PlatformError('reconnect_required', message, { status });
  if (status === 429) return new PlatformError('rate_limited', message, { status, retryAfterSeconds: mastodonRetryAfter(res.headers, now) });
  if (status >= 500) return new PlatformError('transient', message, { status });
  // 422 "Validation failed: …", 404 "Record not found", other 4xx: the same request will fail again.
  return new PlatformError('rejected', message, { status });
}

/** The body of a successful answer, or the classified error. */
export function mastodonResult<T>(res: PlatformResponse, now = Date.now()): T {
  const err = mastodonError(res, now);
  if (err) throw err;
  return res.body as T;
}

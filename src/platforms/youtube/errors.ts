import { extractMessage, retryAfterSeconds } from '../http-errors.js';
import { PlatformError, type PlatformResponse } from '../platform.js';

/**
 * Google's API error shape, as the YouTube Data API, the upload endpoint and the YouTube
 * Analytics API answer it (never under HTTP 200):
 *
 * `{"error":{"code":403,"message":"…","errors":[{"message":"…","domain":"youtube.quota","reason":"quotaExceeded"}],"status":"PERMISSION_DENIED"}}`
 *
 * The `reason` of the first entry of `errors` says what happened; `message` is what users read.
 * The token endpoint answers in the OAuth shape (`{ error, error_description }`), which
 * `common/oauth2.ts` reads.
 */
export interface GoogleErrorBody {
  error?: {
    code?: number;
    message?: string;
    status?: string;
    errors?: { message?: string; domain?: string; reason?: string; location?: string; locationType?: string }[];
  };
}

/** Quota that resets at midnight Pacific Time: the whole project is out of units for the day. */
const DAILY_QUOTA = new Set(['quotaExceeded', 'dailyLimitExceeded']);
/** Too many requests in a short time (per project or per user): wait a little. */
const SHORT_RATE_LIMITS = new Set(['rateLimitExceeded', 'userRateLimitExceeded', 'RATE_LIMIT_EXCEEDED']);
/** Google's own trouble. */
const TRANSIENT = new Set(['backendError', 'internalError', 'serviceUnavailable', 'transientError']);
/** The grant lacks a scope the call needs: only a new authorisation adds it. */
const MISSING_SCOPE = new Set(['insufficientPermissions', 'ACCESS_TOKEN_SCOPE_INSUFFICIENT']);

/** What Google does not say on a short rate limit: wait this long. */
export const DEFAULT_RATE_LIMIT_SECONDS = 60;

/** Seconds from `now` to the next midnight in America/Los_Angeles, when the daily quota resets. */
export function secondsToPacificMidnight(now: number): number {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: 'America/Los_Angeles', hourCycle: 'h23', hour: '2-digit', minute: '2-digit', second: '2-digit' }).formatToParts(new Date(now));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const elapsed = get('hour') * 3600 + get('minute') * 60 + get('second');
  return Math.max(1, 86_400 - elapsed);
}

/** The `reason` of a Google error body (first entry), if any. */
export function googleReason(body: unknown): string | undefined {
  const e = (body as GoogleErrorBody | null)?.error;
  if (!e || typeof e !== 'object') return undefined;
  const reason = e.errors?.[0]?.reason;
  return typeof reason === 'string' ? reason : typeof e.status === 'string' ? e.status : undefined;
}

function googleMessage(res: PlatformResponse): string {
  const e = (res.body as GoogleErrorBody | null)?.error;
  const message = (e && typeof e === 'object' && typeof e.message === 'string' && e.message) || e?.errors?.[0]?.message || extractMessage(res.body);
  return message ? message.trim().slice(0, 500) : `YouTube answered HTTP ${res.status}`;
}

/**
 * Classifies a Google API answer; undefined when it succeeded. 401 is an expired or revoked
 * access token (refreshed once; a dead grant then fails the refresh with `invalid_grant`);
 * quota and rate limits wait (until Pacific midnight for the daily quota); Google's own
 * `backendError` and any 5xx are transient; a missing scope needs a new authorisation; every
 * other refusal (`uploadLimitExceeded`, `invalidTitle`, `forbidden`, `commentsDisabled`…) is
 * final, in Google's words.
 */
export function youtubeError(res: PlatformResponse, now = Date.now()): PlatformError | undefined {
  if (res.status < 400) return undefined;
  const reason = googleReason(res.body);
  const message = googleMessage(res);
  const details = { status: res.status, ...(reason ? { platformCode: reason } : {}) };
  if (res.status === 401) return new PlatformError('auth_expired', message, details);
  if (reason && DAILY_QUOTA.has(reason)) {
    return new PlatformError('rate_limited', message, { ...details, retryAfterSeconds: secondsToPacificMidnight(now) });
  }
  if (res.status === 429 || (reason && SHORT_RATE_LIMITS.has(reason))) {
    return new PlatformError('rate_limited', message, { ...details, retryAfterSeconds: retryAfterSeconds(res.headers, now) ?? DEFAULT_RATE_LIMIT_SECONDS });
  }
  if (res.status >= 500 || (reason && TRANSIENT.has(reason))) {
    return new PlatformError('transient', message, { ...details, retryAfterSeconds: retryAfterSeconds(res.headers, now) });
  }
  if (res.status === 403 && reason && MISSING_SCOPE.has(reason)) {
    return new PlatformError('reconnect_required', `${message} (the authorisation lacks a permission YouTube needs: reconnect the channel)`, details);
  }
  return new PlatformError('rejected', message, details);
}

/** Throws the classified error of a failed answer; returns the answer otherwise. */
export function youtubeOk(res: PlatformResponse, now = Date.now()): PlatformResponse {
  const err = youtubeError(res, now);
  if (err) throw err;
  return res;
}

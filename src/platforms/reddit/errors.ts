import { errorFromResponse, extractMessage, retryAfterSeconds } from '../http-errors.js';
import { PlatformError, type PlatformResponse } from '../platform.js';

/** One entry of Reddit's `json.errors`: `[CODE, message, field]`. */
export type RedditErrorTuple = [string, string, string | null];

/** Codes that mean the token no longer speaks for a user (refresh first, then reconnect). */
const AUTH_CODES = new Set(['USER_REQUIRED', 'INVALID_OAUTH_TOKEN']);

/** When the posting throttle has no readable delay, wait this long (Reddit's usual window). */
const DEFAULT_THROTTLE_SECONDS = 10 * 60;

/**
 * Seconds from a RATELIMIT text: "you are doing that too much. try again in 5 minutes.",
 * "… in 9 seconds.", "Take a break for 1 hour before trying again." Undefined when none is given.
 */
export function parseRateLimitText(text: string): number | undefined {
  let total = 0;
  let found = false;
  for (const m of text.matchAll(/(\d+)\s*(seconds?|secs?|minutes?|mins?|hours?|hrs?|milliseconds?|ms)\b/gi)) {
    const n = Number(m[1]);
    const unit = m[2]!.toLowerCase();
    found = true;
    if (unit.startsWith('ms') || unit.startsWith('milli')) total += n / 1000;
    else if (unit.startsWith('s')) total += n;
    else if (unit.startsWith('m')) total += n * 60;
    else total += n * 3600;
  }
  return found ? Math.max(1, Math.ceil(total)) : undefined;
}

function asRecord(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/** The `json.errors` of an `api_type=json` answer (empty when there are none). */
export function redditErrorTuples(body: unknown): RedditErrorTuple[] {
  const errors = asRecord(asRecord(body)?.json)?.errors;
  if (!Array.isArray(errors)) return [];
  return errors
    .filter((e): e is unknown[] => Array.isArray(e) && typeof e[0] === 'string')
    .map((e) => [String(e[0]), typeof e[1] === 'string' ? e[1] : String(e[0]), typeof e[2] === 'string' ? e[2] : null]);
}

/** The classified error of one `json.errors` entry. */
export function errorFromTuple([code, message, field]: RedditErrorTuple, status = 200): PlatformError {
  const text = `${message}${field ? ` (${field})` : ''}`;
  if (code === 'RATELIMIT') {
    return new PlatformError('rate_limited', `Reddit: ${text}`, { status, platformCode: code, retryAfterSeconds: parseRateLimitText(message) ?? DEFAULT_THROTTLE_SECONDS });
  }
  if (AUTH_CODES.has(code)) return new PlatformError('auth_expired', `Reddit: ${text}`, { status, platformCode: code });
  return new PlatformError('rejected', `Reddit refused the post: ${text} [${code}]`, { status, platformCode: code });
}

/**
 * Classifies a Reddit answer. `api_type=json` endpoints report content errors inside HTTP 200
 * (`{ json: { errors: [[CODE, message, field]] } }`), so the body is read first; then the status:
 * 401 → `auth_expired` (refresh, then reconnect), 403 with `insufficient_scope` → reconnect
 * (the grant lacks a scope), other 403 (banned, private subreddit) and 404 → `rejected`,
 * 429 → `rate_limited` after `x-ratelimit-reset` seconds, 5xx → `transient`.
 */
export function redditError(res: PlatformResponse, now = Date.now()): PlatformError | undefined {
  const tuples = redditErrorTuples(res.body);
  if (tuples.length > 0) return errorFromTuple(tuples[0]!, res.status);
  if (res.status < 400) return undefined;
  const body = asRecord(res.body);
  // Reddit's HTML error pages make poor messages.
  const message = body ? (extractMessage(body) ?? `HTTP ${res.status}`) : typeof res.body === 'string' && !/^\s*</.test(res.body) ? res.body.slice(0, 200) : `HTTP ${res.status}`;
  const reason = typeof body?.reason === 'string' ? body.reason : undefined;
  const detail = reason ? `${message} (${reason})` : message;
  if (res.status === 403 && /insufficient_scope/.test(res.headers['www-authenticate'] ?? '')) {
    return new PlatformError('reconnect_required', `Reddit: the authorisation lacks a needed scope: ${detail}`, { status: 403, platformCode: 'insufficient_scope' });
  }
  if (res.status === 429) {
    return new PlatformError('rate_limited', `Reddit: ${detail}`, { status: 429, retryAfterSeconds: retryAfterSeconds(res.headers, now) ?? 60 });
  }
  const base = errorFromResponse({ ...res, body: { message: detail } }, now);
  if (!base) return undefined;
  return new PlatformError(base.kind, `Reddit: ${base.message}`, { ...base.details, ...(reason ? { platformCode: reason } : {}) });
}

/** The answer's body when it is a success, or the classified error. */
export function redditOk<T = unknown>(res: PlatformResponse, now = Date.now()): T {
  const err = redditError(res, now);
  if (err) throw err;
  return res.body as T;
}

/** `json.data` of an `api_type=json` answer, or the classified error. */
export function redditJsonData<T>(res: PlatformResponse, now = Date.now()): T {
  const body = redditOk<{ json?: { data?: T } }>(res, now);
  const data = body?.json?.data;
  if (data === undefined) throw new PlatformError('transient', 'Reddit answered without data', { status: res.status, outcomeUnknown: true });
  return data;
}

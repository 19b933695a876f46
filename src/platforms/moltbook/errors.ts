import { extractMessage, retryAfterSeconds } from '../http-errors.js';
import { PlatformError, type PlatformResponse } from '../platform.js';

/** Moltbook's post cooldown (1 post / 30 min): the wait when a 429 says nothing more precise. */
export const MOLTBOOK_POST_COOLDOWN_SECONDS = 30 * 60;

interface MoltbookErrorBody {
  success?: boolean;
  error?: unknown;
  hint?: unknown;
  retry_after_minutes?: unknown;
  retry_after_seconds?: unknown;
}

const asObject = (b: unknown): MoltbookErrorBody => (typeof b === 'object' && b !== null ? (b) : {});
const positive = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : typeof v === 'string' && /^\d+(\.\d+)?$/.test(v) && Number(v) > 0 ? Number(v) : undefined);

/** The wait Moltbook gave: `retry_after_seconds`, else `retry_after_minutes`, else `Retry-After`. */
export function moltbookWait(res: PlatformResponse, now = Date.now()): number | undefined {
  const b = asObject(res.body);
  const s = positive(b.retry_after_seconds);
  if (s !== undefined) return Math.ceil(s);
  const m = positive(b.retry_after_minutes);
  if (m !== undefined) return Math.ceil(m * 60);
  return retryAfterSeconds(res.headers, now);
}

/** Moltbook's words: `error`, with its `hint` ("How to fix") when it gives one. */
export function moltbookMessage(res: PlatformResponse): string {
  const b = asObject(res.body);
  const error = typeof b.error === 'string' && b.error.trim() !== '' ? b.error.trim() : (extractMessage(res.body) ?? `Moltbook answered HTTP ${res.status}`);
  const hint = typeof b.hint === 'string' && b.hint.trim() !== '' ? b.hint.trim() : undefined;
  return hint ? `${error} (${hint})` : error;
}

/**
 * Classifies a Moltbook answer (`{ success: false, error, hint }`). The body decides first: a
 * `success: false` is an error whatever the status (including HTTP 200). Then: 429 or a
 * `retry_after_*` field → `rate_limited` with Moltbook's wait (posts: 1 per 30 minutes, its body
 * says `retry_after_minutes`; comments: 1 per 20 seconds, `retry_after_seconds`); 401 → the key
 * is gone (Moltbook keys do not expire, so there is nothing to refresh: reconnect); 5xx →
 * `transient`; anything else → `rejected` with Moltbook's words.
 */
export function moltbookError(res: PlatformResponse, now = Date.now()): PlatformError | undefined {
  const b = asObject(res.body);
  const failed = b.success === false || res.status >= 400;
  if (!failed) return undefined;
  const message = moltbookMessage(res);
  const details = { status: res.status };
  const wait = moltbookWait(res, now);
  if (res.status === 429 || positive(b.retry_after_minutes) !== undefined || positive(b.retry_after_seconds) !== undefined) {
    return new PlatformError('rate_limited', message, { ...details, retryAfterSeconds: wait ?? MOLTBOOK_POST_COOLDOWN_SECONDS });
  }
  if (res.status === 401) return new PlatformError('reconnect_required', `Moltbook refused the API key: ${message}`, { ...details, field: 'apiKey' });
  if (res.status >= 500) return new PlatformError('transient', message, { ...details, retryAfterSeconds: wait });
  return new PlatformError('rejected', message, details);
}

import { extractMessage, retryAfterSeconds } from '../http-errors.js';
import { PlatformError, type PlatformResponse } from '../platform.js';

/**
 * Dribbble API v2 errors: `{ "message": "…" }`, and for refused fields (422)
 * `{ "message": "Validation failed", "errors": [{ "attribute": "image", "message": "…" }] }`.
 * Every answer carries `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset`
 * (epoch seconds); over the limit Dribbble answers 429. Dribbble reports no errors under HTTP 200.
 */
export interface DribbbleErrorBody {
  message?: string;
  errors?: { attribute?: string; message?: string }[];
}

/** What Dribbble does not say on a 429: its limits are per minute. */
export const DEFAULT_RATE_LIMIT_SECONDS = 60;

/** Dribbble's message with the refused attributes ("Validation failed: image must be …"). */
export function dribbbleMessage(res: PlatformResponse): string {
  const b = (typeof res.body === 'object' && res.body !== null ? res.body : {}) as DribbbleErrorBody;
  const base = (typeof b.message === 'string' && b.message) || extractMessage(res.body) || `Dribbble answered HTTP ${res.status}`;
  const fields = Array.isArray(b.errors) ? b.errors.map((e) => [e.attribute, e.message].filter(Boolean).join(' ')).filter(Boolean) : [];
  return `${base.replace(/\.$/, '')}${fields.length ? `: ${fields.join('; ')}` : ''}`.slice(0, 600);
}

/**
 * Classifies a Dribbble answer; undefined when it succeeded. Tokens never expire, so a 401 is a
 * revoked grant (reconnect); a 403 for the missing `upload` scope needs a new authorisation too,
 * while "not allowed to upload" (the account is not a player or pro) is a final refusal; 429
 * waits until `X-RateLimit-Reset`; 5xx are transient; 404 and 422 are refusals in Dribbble's words.
 */
export function dribbbleError(res: PlatformResponse, now = Date.now()): PlatformError | undefined {
  if (res.status < 400) return undefined;
  const message = dribbbleMessage(res);
  const details = { status: res.status };
  if (res.status === 401) return new PlatformError('reconnect_required', message, details);
  if (res.status === 429) return new PlatformError('rate_limited', message, { ...details, retryAfterSeconds: retryAfterSeconds(res.headers, now) || DEFAULT_RATE_LIMIT_SECONDS });
  if (res.status >= 500) return new PlatformError('transient', message, { ...details, retryAfterSeconds: retryAfterSeconds(res.headers, now) });
  if (res.status === 403 && /scope/i.test(message)) {
    return new PlatformError('reconnect_required', `${message} (reconnect the channel and allow uploading shots)`, details);
  }
  return new PlatformError('rejected', message, details);
}

export function dribbbleOk(res: PlatformResponse, now = Date.now()): PlatformResponse {
  const err = dribbbleError(res, now);
  if (err) throw err;
  return res;
}

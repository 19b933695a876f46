import { errorFromResponse, retryAfterSeconds } from '../http-errors.js';
import { PlatformError, type PlatformResponse } from '../platform.js';

/**
 * Medium answers errors as `{ errors: [{ message, code }] }`. The codes seen in the wild (Medium's
 * SDK issues): 6000 an access token is required, 6003 "Token was invalid.", 6004 "User not
 * found", 6005 "Application not found" (the token's integration was disabled). An integration
 * token never expires and cannot be refreshed, so each of those means the channel must be
 * connected again with a valid token.
 */
const RECONNECT_CODES = new Set([6000, 6003, 6004, 6005]);

/** Medium publishes no rate-limit header; when a 429 says nothing, wait this long. */
export const DEFAULT_RETRY_AFTER_SECONDS = 60;

interface MediumErrorBody {
  errors?: { message?: string; code?: number }[];
}

export function mediumError(res: PlatformResponse, now = Date.now()): PlatformError | undefined {
  const body = (typeof res.body === 'object' && res.body !== null ? res.body : {}) as MediumErrorBody;
  const first = Array.isArray(body.errors) ? body.errors[0] : undefined;
  // The body decides first: an `errors` list is an error whatever the status says.
  if (!first) {
    if (res.status < 400) return undefined;
    return errorFromResponse(res, now);
  }
  const code = typeof first.code === 'number' ? first.code : undefined;
  const message = first.message?.trim() || `Medium error ${code ?? res.status}`;
  const details = { status: res.status, platformCode: code === undefined ? undefined : String(code) };
  if (res.status === 429) {
    return new PlatformError('rate_limited', message, { ...details, retryAfterSeconds: retryAfterSeconds(res.headers, now) ?? DEFAULT_RETRY_AFTER_SECONDS });
  }
  if ((code !== undefined && RECONNECT_CODES.has(code)) || res.status === 401) {
    return new PlatformError('reconnect_required', message, { ...details, field: 'token' });
  }
  if (res.status >= 500 || code === -1) return new PlatformError('transient', message, { ...details, retryAfterSeconds: retryAfterSeconds(res.headers, now) });
  return new PlatformError('rejected', message, details);
}

/** The `data` of a successful answer, or the classified error. */
export function mediumData<T>(res: PlatformResponse): T {
  const err = mediumError(res);
  if (err) throw err;
  const data = (res.body as { data?: T } | null)?.data;
  if (data === undefined) throw new PlatformError('transient', `Medium answered HTTP ${res.status} without data`, { status: res.status });
  return data;
}

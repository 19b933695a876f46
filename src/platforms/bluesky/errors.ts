import { extractMessage, retryAfterSeconds } from '../http-errors.js';
import { PlatformError, type PlatformResponse } from '../platform.js';

/**
 * XRPC errors are `{ error: "Name", message }` with a meaningful HTTP status, never under 200.
 * The error *name* decides before the status does: the PDS answers an expired access token with
 * 400 `ExpiredToken`, which the default rule would call "rejected" although a refresh fixes it.
 */
interface XrpcErrorBody {
  error?: unknown;
  message?: unknown;
}

/**
 * The account itself is gone or blocked: no login can fix it. A refused *token* is different:
 * with the stored app password a fresh login may still work, so it is `auth_expired` and `refresh`
 * decides (it answers `reconnect_required` only when the password itself is refused).
 */
const RECONNECT = new Set(['AccountTakedown', 'AccountDeactivated']);
const TOKEN_REFUSED = new Set(['ExpiredToken', 'InvalidToken', 'AuthenticationRequired', 'AuthMissing']);

export function blueskyErrorName(body: unknown): string | undefined {
  const name = (body as XrpcErrorBody | null)?.error;
  return typeof body === 'object' && typeof name === 'string' ? name : undefined;
}

export function blueskyError(res: PlatformResponse, now = Date.now()): PlatformError | undefined {
  if (res.status < 400) return undefined;
  const name = blueskyErrorName(res.body);
  const message = extractMessage(res.body) ?? `Bluesky answered HTTP ${res.status}`;
  const details = { status: res.status, ...(name ? { platformCode: name } : {}) };
  if (name && RECONNECT.has(name)) return new PlatformError('reconnect_required', message, details);
  if ((name && TOKEN_REFUSED.has(name)) || res.status === 401) return new PlatformError('auth_expired', message, details);
  if (res.status === 429 || name === 'RateLimitExceeded') {
    // `ratelimit-reset` is an epoch second; retryAfterSeconds turns it into a delay.
    return new PlatformError('rate_limited', message, { ...details, retryAfterSeconds: retryAfterSeconds(res.headers, now) });
  }
  if (res.status >= 500) return new PlatformError('transient', message, details);
  return new PlatformError('rejected', message, details);
}

/** The body of a successful answer, or the classified error. */
export function blueskyResult<T>(res: PlatformResponse): T {
  const err = blueskyError(res);
  if (err) throw err;
  return res.body as T;
}

import { extractMessage, retryAfterSeconds } from '../http-errors.js';
import { PlatformError, type PlatformResponse } from '../platform.js';

/**
 * Skool's private web API (api2.skool.com) answers errors with an HTTP status and a short message.
 * None of this is documented publicly: the words below are the ones Postiz's working
 * implementation looks for, and the rest (429 with Retry-After, 5xx) is assumed.
 */

/** Refusals Skool words itself: the user may not post there. Final, with Skool's words kept. */
const PERMISSION_WORDS = [/must be admin or level/i, /cannot post to this label/i];

/** When Skool says to slow down without saying for how long (assumed). */
export const DEFAULT_RETRY_AFTER_SECONDS = 60;

function text(body: unknown): string {
  if (typeof body === 'string') return body;
  try {
    return JSON.stringify(body) ?? '';
  } catch {
    return '';
  }
}

/** The classified error of a Skool answer, or undefined when it succeeded. The body is read before the status. */
export function skoolError(res: PlatformResponse, now = Date.now()): PlatformError | undefined {
  const raw = text(res.body);
  const message = extractMessage(res.body) ?? (res.status >= 400 ? `Skool answered HTTP ${res.status}` : undefined);
  if (PERMISSION_WORDS.some((w) => w.test(raw))) {
    return new PlatformError('rejected', `Skool refused the post: ${message ?? raw}`, { status: res.status });
  }
  if (res.status < 400) return undefined;
  if (res.status === 401) {
    // The session cookies do not refresh: the user logged out of Skool (or the cookies were revoked).
    return new PlatformError('reconnect_required', `Skool ended the session (the auth_token cookie is no longer accepted); reconnect with fresh cookies: ${message}`, {
      status: 401,
      field: 'authToken',
    });
  }
  if (res.status === 429) {
    return new PlatformError('rate_limited', message!, { status: 429, retryAfterSeconds: retryAfterSeconds(res.headers, now) ?? DEFAULT_RETRY_AFTER_SECONDS });
  }
  if (res.status >= 500) return new PlatformError('transient', message!, { status: res.status, retryAfterSeconds: retryAfterSeconds(res.headers, now) });
  return new PlatformError('rejected', `Skool refused the request: ${message}`, { status: res.status });
}

/** The body of a successful answer, or the classified error. */
export function skoolResult<T>(res: PlatformResponse): T {
  const err = skoolError(res);
  if (err) throw err;
  return res.body as T;
}

import { extractMessage, retryAfterSeconds } from '../http-errors.js';
import { PlatformError, type PlatformResponse } from '../platform.js';

/**
 * MeWe's developer API is not publicly documented. The words read here are the ones a working
 * implementation (Postiz, the reference) looks for in the answer's body: "Unauthorized" (the
 * apiToken is gone → reconnect), 420 "Enhance Your Calm" (slow down), "Forbidden" (not allowed:
 * final). Everything else — the `{ message }` body, 429, 5xx, the default wait — is assumed.
 */

/** When MeWe says "Enhance Your Calm" without a wait (assumed). */
export const DEFAULT_RETRY_AFTER_SECONDS = 60;

function text(body: unknown): string {
  if (typeof body === 'string') return body;
  try {
    return JSON.stringify(body) ?? '';
  } catch {
    return '';
  }
}

/** The classified error of a MeWe answer, or undefined when it succeeded. The body is read before the status. */
export function meweError(res: PlatformResponse, now = Date.now()): PlatformError | undefined {
  const raw = text(res.body);
  const failed = res.status >= 400;
  const message = extractMessage(res.body) ?? `MeWe answered HTTP ${res.status}`;
  if (res.status === 420 || res.status === 429 || (failed && /Enhance Your Calm/i.test(raw))) {
    return new PlatformError('rate_limited', `MeWe asked to slow down: ${message}`, { status: res.status, retryAfterSeconds: retryAfterSeconds(res.headers, now) ?? DEFAULT_RETRY_AFTER_SECONDS });
  }
  if (res.status === 401 || (failed && /Unauthorized/i.test(raw))) {
    return new PlatformError('reconnect_required', `MeWe no longer accepts this connection (${message}): reconnect the channel`, { status: res.status });
  }
  if (res.status === 403 || (failed && /Forbidden/i.test(raw))) {
    return new PlatformError('rejected', `MeWe refused: ${message}`, { status: res.status });
  }
  if (!failed) return undefined;
  if (res.status >= 500) return new PlatformError('transient', message, { status: res.status, retryAfterSeconds: retryAfterSeconds(res.headers, now) });
  return new PlatformError('rejected', `MeWe refused: ${message}`, { status: res.status });
}

/** The body of a successful answer, or the classified error. */
export function meweResult<T>(res: PlatformResponse): T {
  const err = meweError(res);
  if (err) throw err;
  return res.body as T;
}

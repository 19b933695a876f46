import { extractMessage, retryAfterSeconds } from '../http-errors.js';
import { PlatformError, type PlatformResponse } from '../platform.js';

/** DEV's own error answer: `{ "error": "Validation failed: …", "status": 422 }`. */
interface DevtoErrorBody {
  error?: string;
  status?: number;
}

/** DEV's 429 says "try again in N seconds" when the header is missing; 30 s is its article window. */
export const DEVTO_DEFAULT_RETRY_SECONDS = 30;

/**
 * Classifies a DEV (Forem API v1) answer. DEV never reports errors under HTTP 200; a failure is
 * `{ error, status }` with the same status (HTML for some 5xx). An API key does not expire, so a
 * 401 means the key was revoked or is wrong: the channel must be connected again with a new one.
 */
export function devtoError(res: PlatformResponse, now = Date.now()): PlatformError | undefined {
  const body = (typeof res.body === 'object' && res.body !== null ? res.body : {}) as DevtoErrorBody;
  const status = typeof body.status === 'number' && body.status >= 400 ? body.status : res.status;
  if (status < 400) return undefined;
  const message = (typeof body.error === 'string' && body.error.trim() !== '' ? body.error.trim() : extractMessage(res.body)) ?? `DEV answered HTTP ${status}`;
  if (status === 401) return new PlatformError('reconnect_required', `DEV refused the API key: ${message}`, { status, field: 'apiKey' });
  if (status === 429) {
    const said = /try again in (\d+) seconds?/i.exec(message);
    return new PlatformError('rate_limited', message, {
      status,
      retryAfterSeconds: retryAfterSeconds(res.headers, now) ?? (said ? Number(said[1]) : DEVTO_DEFAULT_RETRY_SECONDS),
    });
  }
  if (status >= 500) return new PlatformError('transient', message, { status, retryAfterSeconds: retryAfterSeconds(res.headers, now) });
  // 400/403/404/422: the article or request was refused; DEV's words are what the user reads.
  return new PlatformError('rejected', message, { status });
}

/** The body of a successful answer, or the classified error. */
export function devtoOk<T>(res: PlatformResponse): T {
  const err = devtoError(res);
  if (err) throw err;
  return res.body as T;
}

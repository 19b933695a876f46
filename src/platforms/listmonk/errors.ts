import { retryAfterSeconds } from '../http-errors.js';
import { PlatformError, type PlatformResponse } from '../platform.js';

/**
 * listmonk answers errors as `{ "message": "..." }` with the HTTP status (echo's HTTPError). Wrong
 * API credentials are a 403 "invalid API credentials" (v4+; a 401 from older versions' Basic
 * auth or a proxy); a role without the needed permission is a 403 "permission denied: <perm>".
 * API tokens do not expire, so refused credentials mean the channel must be connected again.
 */

/** listmonk has no rate limit of its own; a proxy in front of it may answer 429 without saying how long. */
export const DEFAULT_RETRY_AFTER_SECONDS = 30;

const BAD_CREDENTIALS = /invalid API credentials|invalid session|api_key:token missing|empty `api_key` or `token`|unknown Authorization scheme|invalid Base64/i;

export function listmonkMessage(body: unknown): string | undefined {
  if (typeof body === 'object' && body !== null && typeof (body as { message?: unknown }).message === 'string') {
    return (body as { message: string }).message.trim() || undefined;
  }
  if (typeof body === 'string' && body.trim() !== '' && !/^\s*</.test(body)) return body.trim().slice(0, 300);
  return undefined;
}

export function listmonkError(res: PlatformResponse, now = Date.now()): PlatformError | undefined {
  const body = res.body;
  const hasData = typeof body === 'object' && body !== null && 'data' in body;
  const message = listmonkMessage(body) ?? `listmonk answered HTTP ${res.status}`;
  if (res.status < 400) {
    // The body decides: a success always carries `data`; anything else (a proxy's login page, a message) is not one.
    if (hasData) return undefined;
    return new PlatformError('rejected', listmonkMessage(body) ?? `listmonk answered HTTP ${res.status} without data: is this the address of a listmonk instance?`, { status: res.status });
  }
  const details = { status: res.status };
  if (res.status === 429) return new PlatformError('rate_limited', message, { ...details, retryAfterSeconds: retryAfterSeconds(res.headers, now) ?? DEFAULT_RETRY_AFTER_SECONDS });
  if (res.status === 401 || (res.status === 403 && BAD_CREDENTIALS.test(message))) {
    return new PlatformError('reconnect_required', message, { ...details, field: 'token' });
  }
  if (res.status >= 500) return new PlatformError('transient', message, { ...details, retryAfterSeconds: retryAfterSeconds(res.headers, now) });
  // 400 (invalid fields, unknown list), 403 permission denied, 404: final, with listmonk's message.
  return new PlatformError('rejected', message, details);
}

/** The `data` of a successful answer, or the classified error. */
export function listmonkData<T>(res: PlatformResponse): T {
  const err = listmonkError(res);
  if (err) throw err;
  return (res.body as { data: T }).data;
}

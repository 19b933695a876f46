import { extractMessage, retryAfterSeconds } from '../http-errors.js';
import { PlatformError, type PlatformResponse } from '../platform.js';

/** Whop's wait when a 429 carries no `Retry-After` (its limits are per minute). */
export const WHOP_DEFAULT_RETRY_SECONDS = 60;

/** Codes after which only a new authorisation helps. */
const RECONNECT = new Set(['invalid_grant', 'insufficient_scope', 'invalid_client', 'unauthorized_client', 'revoked_token']);
const EXPIRED = new Set(['invalid_token', 'token_expired', 'expired_token']);

/**
 * The code and message of a Whop answer: OAuth answers `{ error: "invalid_grant",
 * error_description }`, the REST API `{ error: { type, message } }`.
 */
export function whopErrorOf(body: unknown): { code?: string; message?: string } {
  if (typeof body !== 'object' || body === null) return { message: typeof body === 'string' && body.trim() !== '' ? body.trim().slice(0, 500) : undefined };
  const b = body as { error?: unknown; error_description?: unknown; message?: unknown };
  if (typeof b.error === 'string') return { code: b.error, message: typeof b.error_description === 'string' ? b.error_description : b.error };
  if (typeof b.error === 'object' && b.error !== null) {
    const e = b.error as { type?: unknown; code?: unknown; message?: unknown };
    const code = typeof e.code === 'string' ? e.code : typeof e.type === 'string' ? e.type : undefined;
    return { code, message: typeof e.message === 'string' ? e.message : extractMessage(body) };
  }
  return { message: extractMessage(body) };
}

/**
 * Classifies a Whop answer. The code decides first: `invalid_grant` / `insufficient_scope` (and
 * a revoked or unknown client) → `reconnect_required`; an expired access token (`invalid_token`,
 * or any other 401) → `auth_expired`, refreshed once. Then the status: 429 → `rate_limited` with
 * `Retry-After` (else a minute), 5xx → `transient`, any other 4xx (`invalid_request`,
 * `not_found`…) → `rejected` with Whop's words.
 */
export function whopError(res: PlatformResponse, now = Date.now()): PlatformError | undefined {
  if (res.status < 400) return undefined;
  const { code, message: said } = whopErrorOf(res.body);
  const message = said ?? `Whop answered HTTP ${res.status}`;
  const details = { status: res.status, platformCode: code };
  if (code && RECONNECT.has(code)) return new PlatformError('reconnect_required', `Whop: ${message}`, details);
  if (res.status === 429) return new PlatformError('rate_limited', message, { ...details, retryAfterSeconds: retryAfterSeconds(res.headers, now) ?? WHOP_DEFAULT_RETRY_SECONDS });
  if (res.status === 401 || (code && EXPIRED.has(code))) return new PlatformError('auth_expired', message, details);
  if (res.status >= 500) return new PlatformError('transient', message, { ...details, retryAfterSeconds: retryAfterSeconds(res.headers, now) });
  return new PlatformError('rejected', message, details);
}

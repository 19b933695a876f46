import { extractMessage, retryAfterSeconds } from '../http-errors.js';
import { PlatformError, type PlatformResponse } from '../platform.js';

/**
 * Kick's public API (`https://api.kick.com/public/v1/…`) answers `{ data, message }`, failures
 * included: 401 for a missing, expired or revoked token, 403 for a scope the token lacks, 429
 * when limited (with `Retry-After`), 4xx with Kick's message for a refused request. A chat
 * message Kick did not deliver comes back under HTTP 200 with `data.is_sent: false`.
 */

/** Kick documents no rate-limit window: the wait when a 429 names none. */
export const DEFAULT_RETRY_AFTER_SECONDS = 60;

function messageOf(res: PlatformResponse): string {
  return extractMessage(res.body) ?? `Kick answered HTTP ${res.status}`;
}

/** Classifies a Kick API answer; undefined when it succeeded. */
export function kickError(res: PlatformResponse, now = Date.now()): PlatformError | undefined {
  if (res.status < 400) return undefined;
  const message = messageOf(res);
  const details = { status: res.status };
  if (res.status === 401) return new PlatformError('auth_expired', message, details);
  if (res.status === 403) {
    // A token without the scope the call needs: only a new authorisation grants it.
    return new PlatformError('reconnect_required', `${message} (the Kick authorisation lacks a permission: reconnect the channel)`, details);
  }
  if (res.status === 429) return new PlatformError('rate_limited', message, { ...details, retryAfterSeconds: retryAfterSeconds(res.headers, now) ?? DEFAULT_RETRY_AFTER_SECONDS });
  if (res.status >= 500) return new PlatformError('transient', message, { ...details, retryAfterSeconds: retryAfterSeconds(res.headers, now) });
  return new PlatformError('rejected', message, details);
}

export function kickOk(res: PlatformResponse, now = Date.now()): PlatformResponse {
  const err = kickError(res, now);
  if (err) throw err;
  return res;
}

/** The answer of `POST /public/v1/chat`: the message id, or the refusal Kick put under HTTP 200. */
export function sentMessageId(body: unknown): string {
  const b = (typeof body === 'object' && body !== null ? body : {}) as { data?: { is_sent?: unknown; message_id?: unknown }; message?: unknown };
  if (b.data?.is_sent !== true) {
    const why = typeof b.message === 'string' && b.message.trim() !== '' && b.message !== 'OK' ? b.message : 'the message was not sent';
    throw new PlatformError('rejected', `Kick did not send the chat message: ${why}`, { platformCode: 'is_sent_false' });
  }
  if (typeof b.data.message_id !== 'string' || b.data.message_id === '') throw new PlatformError('transient', 'Kick sent the chat message without naming it', { outcomeUnknown: true });
  return b.data.message_id;
}

import { extractMessage, retryAfterSeconds } from '../http-errors.js';
import { PlatformError, type PlatformResponse } from '../platform.js';

/**
 * Twitch's Helix API answers failures as `{ error, status, message }` with the HTTP status:
 * 401 for an invalid or expired token (refreshed, then reconnect when the refresh fails), 403 for
 * a missing scope or role (only a new authorisation helps), 429 when the token's bucket is empty —
 * `Ratelimit-Reset` is the epoch second it refills — and 4xx with Twitch's message for a refused
 * request. A chat message Twitch dropped comes back under HTTP 200 with `is_sent: false` and a
 * `drop_reason { code, message }` (duplicate, channel settings, AutoMod).
 */

/** The wait when a 429 carries no `Ratelimit-Reset` (Helix buckets refill within a minute). */
export const DEFAULT_RETRY_AFTER_SECONDS = 60;

export function twitchError(res: PlatformResponse, now = Date.now()): PlatformError | undefined {
  if (res.status < 400) return undefined;
  const message = extractMessage(res.body) ?? `Twitch answered HTTP ${res.status}`;
  const details = { status: res.status };
  if (res.status === 401) return new PlatformError('auth_expired', message, details);
  if (res.status === 403) return new PlatformError('reconnect_required', `${message} (the Twitch authorisation lacks a permission: reconnect the channel)`, details);
  if (res.status === 429) return new PlatformError('rate_limited', message, { ...details, retryAfterSeconds: Math.max(1, retryAfterSeconds(res.headers, now) ?? DEFAULT_RETRY_AFTER_SECONDS) });
  if (res.status >= 500) return new PlatformError('transient', message, { ...details, retryAfterSeconds: retryAfterSeconds(res.headers, now) });
  return new PlatformError('rejected', message, details);
}

export function twitchOk(res: PlatformResponse, now = Date.now()): PlatformResponse {
  const err = twitchError(res, now);
  if (err) throw err;
  return res;
}

interface SentMessage {
  message_id?: string;
  is_sent?: boolean;
  drop_reason?: { code?: string; message?: string } | null;
}

/** The id of a chat message from `POST /helix/chat/messages`, or Twitch's reason for dropping it. */
export function sentMessageId(body: unknown): string {
  const sent = ((body as { data?: SentMessage[] } | null)?.data ?? [])[0];
  if (!sent) throw new PlatformError('transient', 'Twitch answered the chat message without a result', { outcomeUnknown: true });
  if (sent.is_sent !== true) {
    const reason = sent.drop_reason?.message || sent.drop_reason?.code || 'no reason given';
    throw new PlatformError('rejected', `Twitch did not send the chat message: ${reason}`, sent.drop_reason?.code ? { platformCode: sent.drop_reason.code } : {});
  }
  if (!sent.message_id) throw new PlatformError('transient', 'Twitch sent the chat message without naming it', { outcomeUnknown: true });
  return sent.message_id;
}

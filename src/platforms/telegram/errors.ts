import { errorFromResponse, retryAfterSeconds } from '../http-errors.js';
import { PlatformError, type PlatformResponse } from '../platform.js';

interface TelegramAnswer {
  ok?: boolean;
  result?: unknown;
  error_code?: number;
  description?: string;
  parameters?: { retry_after?: number; migrate_to_chat_id?: number };
}

/** These mean the bot cannot post to this chat any more, whatever we retry: reconnect. */
const RECONNECT = [/bot was kicked/i, /bot is not a member/i, /not enough rights/i, /chat not found/i, /bot was blocked/i, /have no rights/i, /need administrator rights/i];

/**
 * Telegram answers `{ ok: false, error_code, description, parameters }`, usually with the same
 * HTTP status but sometimes under HTTP 200: the body decides.
 */
export function telegramError(res: PlatformResponse, now = Date.now()): PlatformError | undefined {
  const body = (typeof res.body === 'object' && res.body !== null ? res.body : {}) as TelegramAnswer;
  if (body.ok === true) return undefined;
  if (body.ok !== false) return errorFromResponse(res, now) ?? new PlatformError('transient', 'Telegram answered without a result');
  const code = body.error_code ?? res.status;
  const message = body.description ?? `Telegram error ${code}`;
  if (code === 429) {
    return new PlatformError('rate_limited', message, {
      status: 429,
      retryAfterSeconds: body.parameters?.retry_after ?? retryAfterSeconds(res.headers, now),
    });
  }
  // A bot token does not expire: 401 means it was revoked or is wrong.
  if (code === 401 || code === 404) return new PlatformError('reconnect_required', message, { status: code, field: 'botToken' });
  if (RECONNECT.some((r) => r.test(message))) return new PlatformError('reconnect_required', message, { status: code, field: 'chatId' });
  if (code >= 500) return new PlatformError('transient', message, { status: code, retryAfterSeconds: body.parameters?.retry_after ?? retryAfterSeconds(res.headers, now) });
  return new PlatformError('rejected', message, { status: code });
}

/** The `result` of a successful answer, or the classified error. */
export function telegramResult<T>(res: PlatformResponse): T {
  const err = telegramError(res);
  if (err) throw err;
  return (res.body as { result: T }).result;
}

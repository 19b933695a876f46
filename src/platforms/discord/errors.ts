import { extractMessage, retryAfterSeconds } from '../http-errors.js';
import { PlatformError, type PlatformResponse } from '../platform.js';

/**
 * Discord answers errors with a real HTTP status and a body `{ code, message, errors? }`
 * (JSON error codes: https://discord.com/developers/docs/topics/opcodes-and-status-codes).
 * A 429 carries `{ message, retry_after (seconds, float), global }` plus `Retry-After` and
 * `X-RateLimit-Reset-After` headers. Nothing is reported inside HTTP 200.
 */
interface DiscordErrorBody {
  code?: number;
  message?: string;
  errors?: unknown;
  retry_after?: number;
  global?: boolean;
}

export const DISCORD_CODES = {
  unknownChannel: 10003,
  unknownMessage: 10008,
  rateLimited: 20028,
  missingAccess: 50001,
  missingPermissions: 50013,
  invalidFormBody: 50035,
  threadAlreadyCreated: 160004,
} as const;

/** `{ content: { _errors: [{ message }] } }` → `content: Must be 2000 or fewer in length.` */
export function flattenFormErrors(errors: unknown, path: string[] = []): string[] {
  if (!errors || typeof errors !== 'object') return [];
  const out: string[] = [];
  for (const [key, value] of Object.entries(errors as Record<string, unknown>)) {
    if (key === '_errors' && Array.isArray(value)) {
      for (const e of value as { message?: unknown }[]) {
        if (typeof e?.message === 'string') out.push(path.length ? `${path.join('.')}: ${e.message}` : e.message);
      }
    } else {
      out.push(...flattenFormErrors(value, [...path, key]));
    }
  }
  return out;
}

function waitSeconds(res: PlatformResponse, body: DiscordErrorBody, now: number): number | undefined {
  const fromBody = typeof body.retry_after === 'number' && body.retry_after >= 0 ? body.retry_after : undefined;
  const resetAfter = Number(res.headers['x-ratelimit-reset-after']);
  const seconds = fromBody ?? (Number.isFinite(resetAfter) && resetAfter > 0 ? resetAfter : undefined) ?? retryAfterSeconds(res.headers, now);
  // Sub-second waits are common; never hand back 0, which would read as "no wait given".
  return seconds === undefined ? undefined : Math.max(1, Math.ceil(seconds));
}

/** The classified error of a Discord answer, or undefined when it succeeded. */
export function discordError(res: PlatformResponse, now = Date.now()): PlatformError | undefined {
  if (res.status < 400) return undefined;
  const body = (typeof res.body === 'object' && res.body !== null ? res.body : {}) as DiscordErrorBody;
  const code = typeof body.code === 'number' ? body.code : undefined;
  const base = body.message ?? extractMessage(res.body) ?? `HTTP ${res.status}`;
  const fields = flattenFormErrors(body.errors);
  const message = fields.length ? `${base} (${fields.join('; ')})` : base;
  const details = { status: res.status, ...(code !== undefined ? { platformCode: String(code) } : {}) };

  if (res.status === 429 || code === DISCORD_CODES.rateLimited) {
    return new PlatformError('rate_limited', message, { ...details, retryAfterSeconds: waitSeconds(res, body, now) });
  }
  // The bot token is the deployment's and cannot be refreshed: 401 means it was reset or is wrong.
  if (res.status === 401) return new PlatformError('reconnect_required', `Discord refused the bot token: ${message}`, details);
  // The bot was removed from the server or lost its permissions on the channel.
  if (res.status === 403 && (code === DISCORD_CODES.missingAccess || code === DISCORD_CODES.missingPermissions)) {
    return new PlatformError('reconnect_required', `${message}: the bot was removed from the server or lacks permissions on this channel`, details);
  }
  if (res.status >= 500) return new PlatformError('transient', message, details);
  if (code === DISCORD_CODES.unknownChannel) {
    return new PlatformError('rejected', `${message}: the channel does not exist or the bot cannot see it`, details);
  }
  return new PlatformError('rejected', message, details);
}

/** The body of a successful answer, or the classified error. */
export function discordResult<T>(res: PlatformResponse, now = Date.now()): T {
  const err = discordError(res, now);
  if (err) throw err;
  return res.body as T;
}

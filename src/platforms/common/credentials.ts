/**
 * Usage: declare the stored shape once beside the adapter and read it in every operation:
 *   const TelegramCredentialsSchema = z.object({ botToken: z.string().min(1), chatId: z.string().min(1), username: z.string().nullish() });
 *   const c = readCredentials(ctx, TelegramCredentialsSchema, 'Telegram'); // typed, no cast
 * Defaults and fallbacks belong in the schema (`.default()`, `.transform()`), not after the call.
 * A mismatch throws `reconnect_required` naming the first bad field: only reconnecting stores new credentials.
 */
import { z } from 'zod';
import { PlatformError, type Credentials } from '../platform.js';

/**
 * The channel's stored credentials parsed with `schema`: the schema's output, typed.
 *
 * Stored credentials that do not match (a field missing, empty or of the wrong type) throw
 * `PlatformError('reconnect_required')` with `details.field` set to the first offending field —
 * the kind the hand-written `creds(ctx)` checks threw, since retrying cannot repair them and only
 * a new connection stores a complete set. `platform` (the display name) only shapes the message.
 */
export function readCredentials<S extends z.ZodType>(ctx: { credentials: Credentials }, schema: S, platform?: string): z.output<S> {
  const parsed = schema.safeParse(ctx.credentials);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue ? issue.path.map(String).join('.') : '';
  const value = issue ? valueAt(ctx.credentials, issue.path) : undefined;
  const what = field === '' ? 'they are not an object' : `\`${field}\` is ${value === undefined || value === null ? 'missing' : 'invalid'}`;
  throw new PlatformError('reconnect_required', `Stored ${platform ? `${platform} ` : ''}credentials are incomplete (${what}): reconnect the channel`, field === '' ? {} : { field });
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let at = value;
  for (const key of path) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Record<PropertyKey, unknown>)[key];
  }
  return at;
}

/** A stored value a channel cannot work without: a non-empty string. */
export const storedText = z.string().min(1);
/** A stored string that may be absent: `null` then. */
export const storedTextOrNull = z
  .string()
  .nullish()
  .transform((v) => v ?? null);
/** A stored string that may be absent: `''` then. */
export const storedTextOrEmpty = z
  .string()
  .nullish()
  .transform((v) => v ?? '');

/** What an OAuth 2 channel stores of its grant: the access token, and the refresh token and expiry (ISO) when given. */
export const StoredOAuthTokens = z.object({ accessToken: storedText, refreshToken: storedTextOrNull, expiresAt: storedTextOrNull });

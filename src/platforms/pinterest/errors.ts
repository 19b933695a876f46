import { retryAfterSeconds } from '../http-errors.js';
import { PlatformError, type PlatformResponse } from '../platform.js';

/**
 * Pinterest API v5 answers failures with the HTTP status and a body `{ code, message }` (never
 * under HTTP 200): code 1 for invalid parameters, 2 "Authentication failed." (a bad, expired or
 * revoked token: 401), 8 for rate limits (429, with `x-ratelimit-*` headers). The OAuth token
 * endpoint answers in the same shape.
 */
export interface PinterestErrorBody {
  code?: number;
  message?: string;
  status?: string;
}

/** Pinterest's wait when a 429 names none (its limits are per minute for most categories). */
export const DEFAULT_RETRY_AFTER_SECONDS = 60;

/** Error messages that mean Pinterest could not fetch a media URL this time (worth retrying). */
const UNREACHABLE = [/unable to reach/i, /could not (fetch|download|reach)/i, /timed? ?out/i];

/**
 * A message as users should read it: Pinterest may echo what it was sent, base64 pictures
 * included, so long unbroken runs are elided and the whole is cut to 300 characters.
 */
export function pinterestMessage(raw: string): string {
  const cleaned = raw.replace(/[A-Za-z0-9+/=]{120,}/g, '…').replace(/\s+/g, ' ').trim();
  return cleaned.length > 300 ? `${cleaned.slice(0, 299)}…` : cleaned;
}

function bodyOf(res: PlatformResponse): PinterestErrorBody {
  return (typeof res.body === 'object' && res.body !== null ? res.body : {});
}

/**
 * Classifies a Pinterest answer; undefined when it succeeded. `canRefresh` says whether the
 * channel holds a refresh token: without one a refused token can only be replaced by reconnecting.
 */
export function pinterestError(res: PlatformResponse, opts: { now?: number; canRefresh?: boolean } = {}): PlatformError | undefined {
  if (res.status < 400) return undefined;
  const now = opts.now ?? Date.now();
  const body = bodyOf(res);
  const text = typeof res.body === 'string' ? res.body : '';
  const message = pinterestMessage((typeof body.message === 'string' && body.message) || text || `Pinterest error ${res.status}`);
  const details = { status: res.status, ...(typeof body.code === 'number' ? { platformCode: String(body.code) } : {}) };

  if (res.status === 401) {
    // Pinterest says "Authentication failed." (code 2) for an expired token and for a revoked
    // grant alike: refreshing tells them apart (a revoked grant refuses the refresh token too).
    if (opts.canRefresh === false) return new PlatformError('reconnect_required', `${message} (no refresh token is stored: reconnect the channel)`, details);
    return new PlatformError('auth_expired', message, details);
  }
  if (res.status === 429) {
    return new PlatformError('rate_limited', message, { ...details, retryAfterSeconds: retryAfterSeconds(res.headers, now) ?? DEFAULT_RETRY_AFTER_SECONDS });
  }
  if (res.status >= 500) return new PlatformError('transient', message, { ...details, retryAfterSeconds: retryAfterSeconds(res.headers, now) });
  // A scope the user did not grant: only a new authorisation gives it.
  if (res.status === 403 && /scope/i.test(message)) return new PlatformError('reconnect_required', message, details);
  if (UNREACHABLE.some((r) => r.test(message))) return new PlatformError('transient', message, details);
  return new PlatformError('rejected', message, details);
}

/** Throws the classified error of a failed answer; returns the answer otherwise. */
export function pinterestOk(res: PlatformResponse, opts: { now?: number; canRefresh?: boolean } = {}): PlatformResponse {
  const err = pinterestError(res, opts);
  if (err) throw err;
  return res;
}

/**
 * A failed upload to the storage URL Pinterest hands out (an S3 presigned POST), whose errors
 * are S3's XML `<Error><Code>…</Code><Message>…</Message></Error>`. `expired` when the upload
 * policy has run out, so a new upload must be registered.
 */
export function uploadError(res: PlatformResponse): (PlatformError & { expired?: boolean }) | undefined {
  if (res.status < 300) return undefined;
  const text = typeof res.body === 'string' ? res.body : '';
  const code = /<Code>([^<]*)<\/Code>/.exec(text)?.[1];
  const message = /<Message>([^<]*)<\/Message>/.exec(text)?.[1] ?? `HTTP ${res.status}`;
  const kind = res.status >= 500 || code === 'SlowDown' || code === 'RequestTimeout' ? 'transient' : 'rejected';
  const err: PlatformError & { expired?: boolean } = new PlatformError(kind, `Pinterest's video upload failed: ${message}`, { status: res.status, ...(code ? { platformCode: code } : {}) });
  if (res.status === 403 && /expired/i.test(message)) err.expired = true;
  return err;
}

import { extractMessage, retryAfterSeconds } from '../http-errors.js';
import { PlatformError, type PlatformResponse } from '../platform.js';

/** Neynar's error answer: `{ code, message, property?, status? }` (and `{ success: false, message }` on writes). */
interface NeynarErrorBody {
  code?: string;
  message?: string;
  property?: string;
  status?: number;
  success?: boolean;
}

/** Neynar's limits are per minute (by plan); without a header, wait one window. */
export const NEYNAR_DEFAULT_RETRY_SECONDS = 60;

/**
 * Classifies a Neynar answer. The body first: a write that answers 200 with `success: false`
 * failed (its message kept). Then the status: 401 (API key refused) and 403 (the signer is not
 * approved, was revoked, or belongs to another app) mean the grant is gone — the user signs in
 * with Neynar again; a signer never expires, so there is no refresh. 429 waits `Retry-After`
 * (or a minute); 5xx is transient; any other 4xx (400 invalid text/embeds, 404 unknown parent or
 * channel) is refused with Neynar's words.
 */
export function neynarError(res: PlatformResponse, now = Date.now()): PlatformError | undefined {
  const body = (typeof res.body === 'object' && res.body !== null ? res.body : {}) as NeynarErrorBody;
  const message = (typeof body.message === 'string' && body.message.trim() !== '' ? body.message.trim() : extractMessage(res.body)) ?? `Neynar answered HTTP ${res.status}`;
  const platformCode = typeof body.code === 'string' ? body.code : undefined;
  const detail = body.property ? `${message} (${body.property})` : message;
  if (res.status < 400) {
    if (body.success === false) return new PlatformError('rejected', detail, { status: res.status, platformCode });
    return undefined;
  }
  const status = res.status;
  if (status === 401 || status === 403) {
    return new PlatformError('reconnect_required', `Neynar refused the signer or API key: ${detail}`, { status, platformCode });
  }
  if (status === 429) {
    return new PlatformError('rate_limited', detail, { status, platformCode, retryAfterSeconds: retryAfterSeconds(res.headers, now) ?? NEYNAR_DEFAULT_RETRY_SECONDS });
  }
  if (status >= 500) return new PlatformError('transient', detail, { status, platformCode, retryAfterSeconds: retryAfterSeconds(res.headers, now) });
  return new PlatformError('rejected', detail, { status, platformCode });
}

/** The body of a successful answer, or the classified error. */
export function neynarOk<T>(res: PlatformResponse): T {
  const err = neynarError(res);
  if (err) throw err;
  return res.body as T;
}

import { extractMessage, retryAfterSeconds } from '../http-errors.js';
import { PlatformError, type PlatformResponse } from '../platform.js';

/**
 * LinkedIn's REST and v2 APIs answer failures with the HTTP status and a body
 * `{ status, serviceErrorCode, code, message }` (never under HTTP 200). The OAuth endpoints use
 * the OAuth shape `{ error, error_description }` instead; `common/oauth2.ts` reads those.
 */
export interface LinkedinErrorBody {
  status?: number;
  serviceErrorCode?: number;
  code?: string;
  message?: string;
}

/** LinkedIn sends no Retry-After on 429: wait this long unless the message names a daily limit. */
export const DEFAULT_RETRY_AFTER_SECONDS = 60;

/** Errors LinkedIn answers while it is briefly inconsistent (e.g. a comment right after the post). */
const TRANSIENT = [/unable to obtain activity/i, /service unavailable/i, /resource is forbidden/i];

/** 401 codes that mean the grant itself is gone; refreshing cannot help. */
const DEAD_GRANT = new Set(['REVOKED_ACCESS_TOKEN', 'INVALID_ACCESS_TOKEN']);
const DEAD_GRANT_SERVICE_CODES = new Set([65600, 65602]);

function secondsToUtcMidnight(now: number): number {
  const d = new Date(now);
  const midnight = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1);
  return Math.max(1, Math.ceil((midnight - now) / 1000));
}

/**
 * Classifies a LinkedIn answer; undefined when it succeeded. `canRefresh` says whether the
 * channel holds a refresh token: without one an expired token can only be replaced by
 * reconnecting, so `EXPIRED_ACCESS_TOKEN` is `reconnect_required` rather than `auth_expired`.
 */
export function linkedinError(res: PlatformResponse, opts: { now?: number; canRefresh?: boolean } = {}): PlatformError | undefined {
  if (res.status < 400) return undefined;
  const now = opts.now ?? Date.now();
  const body = (typeof res.body === 'object' && res.body !== null ? res.body : {}) as LinkedinErrorBody;
  const status = res.status;
  const code = typeof body.code === 'string' ? body.code : undefined;
  const message = (typeof body.message === 'string' && body.message) || extractMessage(res.body) || `LinkedIn error ${status}`;
  const details = { status, platformCode: code ?? (body.serviceErrorCode !== undefined ? String(body.serviceErrorCode) : undefined) };

  if (status === 401) {
    if ((code && DEAD_GRANT.has(code)) || (body.serviceErrorCode !== undefined && DEAD_GRANT_SERVICE_CODES.has(body.serviceErrorCode))) {
      return new PlatformError('reconnect_required', message, details);
    }
    if (opts.canRefresh === false) {
      return new PlatformError('reconnect_required', `${message} (LinkedIn gave this app no refresh token: reconnect the channel)`, details);
    }
    return new PlatformError('auth_expired', message, details);
  }
  if (status === 429) {
    const retry = retryAfterSeconds(res.headers, now) ?? (/\bDAY limit\b/i.test(message) ? secondsToUtcMidnight(now) : DEFAULT_RETRY_AFTER_SECONDS);
    return new PlatformError('rate_limited', message, { ...details, retryAfterSeconds: retry });
  }
  if (status >= 500 || TRANSIENT.some((r) => r.test(message))) return new PlatformError('transient', message, details);
  // A missing scope or a lost page role: only a new authorisation (or the admin role back) fixes it.
  if (status === 403 && code === 'ACCESS_DENIED') return new PlatformError('reconnect_required', message, details);
  return new PlatformError('rejected', message, details);
}

/** Throws the classified error of a failed answer; returns the answer otherwise. */
export function linkedinOk(res: PlatformResponse, opts: { now?: number; canRefresh?: boolean } = {}): PlatformResponse {
  const err = linkedinError(res, opts);
  if (err) throw err;
  return res;
}

/** The URN LinkedIn names in "Content is a duplicate of urn:li:share:…". */
export function duplicateOf(err: PlatformError): string | undefined {
  if (err.details.platformCode !== 'DUPLICATE_POST' && !/duplicate/i.test(err.message)) return undefined;
  return /urn:li:(?:share|ugcPost):\d+/.exec(err.message)?.[0];
}

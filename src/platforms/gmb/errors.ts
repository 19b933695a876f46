import { extractMessage, retryAfterSeconds } from '../http-errors.js';
import { PlatformError, type PlatformResponse } from '../platform.js';

/**
 * Google's API error shape as the Business Profile APIs answer it (never under HTTP 200):
 *
 * `{"error":{"code":400,"message":"Request contains an invalid argument.","status":"INVALID_ARGUMENT",
 *   "details":[{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[{"field":"summary","description":"…"}]},
 *              {"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"RATE_LIMIT_EXCEEDED","domain":"googleapis.com"},
 *              {"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"30s"}]}}`
 *
 * The v4 API (`mybusiness.googleapis.com/v4`, local posts) puts its field problems in
 * `google.mybusiness.v4.ValidationError` `errorDetails: [{ code, field, message }]`. The token
 * endpoint answers in the OAuth shape (`{ error, error_description }`), read by `common/oauth2.ts`.
 * The one refusal Google reports under 200 is a local post created in state `REJECTED`, which the
 * adapter reads itself.
 */
export interface GoogleErrorBody {
  error?: {
    code?: number;
    message?: string;
    status?: string;
    details?: {
      '@type'?: string;
      reason?: string;
      retryDelay?: string;
      fieldViolations?: { field?: string; description?: string }[];
      errorDetails?: { code?: number; field?: string; message?: string }[];
    }[];
  };
}

/** What Google does not say on a rate limit (its quotas are per minute): wait this long. */
export const DEFAULT_RATE_LIMIT_SECONDS = 60;

/** ErrorInfo reasons that mean the grant cannot do this any more. */
const RECONNECT_REASONS = new Set(['ACCESS_TOKEN_SCOPE_INSUFFICIENT', 'ACCESS_TOKEN_EXPIRED', 'CREDENTIALS_MISSING']);
/** ErrorInfo reasons that are this server's Google project, not the user: reconnecting does not help. */
const PROJECT_REASONS = new Set(['SERVICE_DISABLED', 'API_KEY_INVALID', 'CONSUMER_INVALID', 'BILLING_DISABLED']);

function errorOf(body: unknown): NonNullable<GoogleErrorBody['error']> | undefined {
  const e = (body as GoogleErrorBody | null)?.error;
  return e && typeof e === 'object' ? e : undefined;
}

/** The `ErrorInfo.reason` of a Google error body, else its `status`. */
export function googleReason(body: unknown): string | undefined {
  const e = errorOf(body);
  const info = e?.details?.find((d) => d.reason);
  return info?.reason ?? (typeof e?.status === 'string' ? e.status : undefined);
}

/** Google's message, with the fields it names (BadRequest field violations, v4 ValidationError). */
export function googleMessage(res: PlatformResponse): string {
  const e = errorOf(res.body);
  const base = (typeof e?.message === 'string' && e.message) || extractMessage(res.body) || `Google answered HTTP ${res.status}`;
  const fields: string[] = [];
  for (const d of e?.details ?? []) {
    for (const v of d.fieldViolations ?? []) if (v.field || v.description) fields.push([v.field, v.description].filter(Boolean).join(': '));
    for (const v of d.errorDetails ?? []) if (v.field || v.message) fields.push([v.field, v.message].filter(Boolean).join(': '));
  }
  return `${base}${fields.length ? ` (${fields.join('; ')})` : ''}`.trim().slice(0, 600);
}

/** `RetryInfo.retryDelay` ("30s", "1.5s") in whole seconds, if Google gave one. */
function retryDelaySeconds(body: unknown): number | undefined {
  const delay = errorOf(body)?.details?.find((d) => typeof d.retryDelay === 'string')?.retryDelay;
  const m = delay ? /^(\d+(?:\.\d+)?)s$/.exec(delay) : null;
  return m ? Math.max(1, Math.ceil(Number(m[1]))) : undefined;
}

/**
 * Classifies a Google Business Profile answer; undefined when it succeeded. 401 `UNAUTHENTICATED`
 * is an expired or revoked access token (refreshed once; a dead grant then fails the refresh with
 * `invalid_grant`); `PERMISSION_DENIED` on a location is the grant having lost it (the owner
 * removed the user, or a missing scope): reconnect — except when it is this server's Google
 * project (API not enabled), which is told as such. `RESOURCE_EXHAUSTED`/429 waits for
 * `RetryInfo` or the `Retry-After` header (a minute by default; Postiz marks it permanent, which
 * loses posts to a per-minute quota); 5xx are transient; `INVALID_ARGUMENT`, `NOT_FOUND` (the
 * location deleted), `FAILED_PRECONDITION` (location not verified) are final, in Google's words.
 */
export function gmbError(res: PlatformResponse, now = Date.now()): PlatformError | undefined {
  if (res.status < 400) return undefined;
  const reason = googleReason(res.body);
  const status = errorOf(res.body)?.status;
  const message = googleMessage(res);
  const details = { status: res.status, ...(reason ? { platformCode: reason } : {}) };
  if (res.status === 401 || status === 'UNAUTHENTICATED') return new PlatformError('auth_expired', message, details);
  if (res.status === 429 || status === 'RESOURCE_EXHAUSTED') {
    return new PlatformError('rate_limited', message, { ...details, retryAfterSeconds: retryDelaySeconds(res.body) ?? retryAfterSeconds(res.headers, now) ?? DEFAULT_RATE_LIMIT_SECONDS });
  }
  if (res.status >= 500) return new PlatformError('transient', message, { ...details, retryAfterSeconds: retryDelaySeconds(res.body) ?? retryAfterSeconds(res.headers, now) });
  if (res.status === 403 || status === 'PERMISSION_DENIED') {
    if (reason && PROJECT_REASONS.has(reason)) {
      return new PlatformError('rejected', `${message} (this server's Google project cannot use the Business Profile APIs: enable them and request access)`, details);
    }
    if (!reason || reason === 'PERMISSION_DENIED' || RECONNECT_REASONS.has(reason)) {
      return new PlatformError('reconnect_required', `${message} (the Google account no longer reaches this business: reconnect the channel)`, details);
    }
  }
  return new PlatformError('rejected', message, details);
}

/** Throws the classified error of a failed answer; returns the answer otherwise. */
export function gmbOk(res: PlatformResponse, now = Date.now()): PlatformResponse {
  const err = gmbError(res, now);
  if (err) throw err;
  return res;
}

import { extractMessage, retryAfterSeconds } from '../http-errors.js';
import { PlatformError, type PlatformResponse } from '../platform.js';

/**
 * TikTok's API v2 answers every call with `{ data, error: { code, message, log_id } }`, success
 * included: `error.code` is `"ok"` then. Failures carry a string code and the HTTP status TikTok
 * documents for it (401 `access_token_invalid`, 429 `rate_limit_exceeded`, 400 `invalid_params`,
 * 403 for the posting caps…). The code decides, not the status: an answer whose code is not `ok`
 * is a failure whatever its status. The OAuth token endpoint uses the OAuth shape instead
 * (`{ error: "invalid_grant", error_description, log_id }`), read by {@link tiktokTokenError}.
 */
export interface TiktokErrorObject {
  code?: string;
  message?: string;
  log_id?: string;
}

/**
 * TikTok sends no Retry-After: its limits are counted over a one-minute sliding window
 * (6 initialisations per minute per user, 30 status reads, 600 reads of user/video data).
 */
export const DEFAULT_RETRY_AFTER_SECONDS = 60;

/** The grant lacks a scope: only a new authorisation (with the scope ticked) fixes it. */
const SCOPE_CODES = new Set(['scope_not_authorized', 'scope_permission_missed']);

/** Refusals worth a sentence of help beside TikTok's own words. */
const HINTS: Record<string, string> = {
  url_ownership_unverified: 'TikTok pulls pictures from PUBLIC_URL, whose domain (or URL prefix) must be verified for this app in the TikTok developer portal',
  unaudited_client_can_only_post_to_private_accounts: 'until this TikTok app passes TikTok’s audit it may only post with privacy level SELF_ONLY, to private accounts',
  reached_active_user_cap: 'an unaudited TikTok app may be used by at most 5 posting users a day',
};

function errorObject(body: unknown): TiktokErrorObject | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const e = (body as { error?: unknown }).error;
  return e && typeof e === 'object' ? e : undefined;
}

/** TikTok's words for a failure: its message, its code, and our hint where one helps. */
function wording(code: string, message: string | undefined): string {
  const words = message?.trim() || code;
  const hint = HINTS[code];
  return `${words} (${code})${hint ? ` — ${hint}` : ''}`;
}

/** Classifies an API v2 answer; undefined when it succeeded (`error.code` "ok", or a 2xx without an error object). */
export function tiktokError(res: PlatformResponse, now = Date.now()): PlatformError | undefined {
  const err = errorObject(res.body);
  const code = typeof err?.code === 'string' && err.code !== '' ? err.code : undefined;
  if (code === 'ok' || (code === undefined && res.status < 400)) return undefined;
  const status = res.status;
  const details = { status, platformCode: code };
  if (code === undefined) {
    // Not TikTok's envelope (a proxy, a gateway): judge by the status.
    const message = extractMessage(res.body) ?? `TikTok answered HTTP ${status}`;
    if (status === 401) return new PlatformError('auth_expired', message, details);
    if (status === 429) return new PlatformError('rate_limited', message, { ...details, retryAfterSeconds: retryAfterSeconds(res.headers, now) ?? DEFAULT_RETRY_AFTER_SECONDS });
    if (status >= 500) return new PlatformError('transient', message, details);
    return new PlatformError('rejected', message, details);
  }
  const message = wording(code, err?.message);
  if (code === 'access_token_invalid') return new PlatformError('auth_expired', message, details);
  if (SCOPE_CODES.has(code)) return new PlatformError('reconnect_required', `${message} — reconnect the channel and allow every permission asked`, details);
  if (code === 'rate_limit_exceeded' || status === 429) {
    return new PlatformError('rate_limited', message, { ...details, retryAfterSeconds: retryAfterSeconds(res.headers, now) ?? DEFAULT_RETRY_AFTER_SECONDS });
  }
  if (code === 'internal_error' || status >= 500) return new PlatformError('transient', message, details);
  // Everything else is TikTok refusing this post or request: spam_risk_*, privacy_level_option_mismatch,
  // unaudited_client_can_only_post_to_private_accounts, reached_active_user_cap, url_ownership_unverified,
  // invalid_params, invalid_file_upload…
  return new PlatformError('rejected', message, details);
}

/** The `data` of a successful answer; throws the classified error otherwise. */
export function tiktokData<T>(res: PlatformResponse, now = Date.now()): T {
  const err = tiktokError(res, now);
  if (err) throw err;
  const data = (res.body as { data?: unknown } | null)?.data;
  return (data && typeof data === 'object' ? data : {}) as T;
}

/**
 * Classifies an answer of the OAuth token endpoint (`{ error, error_description, log_id }`, or a
 * token set). A dead grant (`invalid_grant`: the code or refresh token is expired, revoked or used)
 * is `reconnect_required`; a refused client is the deployment's problem, also final.
 */
export function tiktokTokenError(res: PlatformResponse, now = Date.now()): PlatformError | undefined {
  const b = (res.body && typeof res.body === 'object' ? res.body : {}) as Record<string, unknown>;
  const code = typeof b.error === 'string' && b.error !== '' ? b.error : undefined;
  if (!code) {
    if (res.status < 400) return undefined;
    if (res.status === 429) return new PlatformError('rate_limited', `TikTok answered HTTP 429`, { status: 429, retryAfterSeconds: retryAfterSeconds(res.headers, now) ?? DEFAULT_RETRY_AFTER_SECONDS });
    return new PlatformError(res.status >= 500 ? 'transient' : 'rejected', extractMessage(res.body) ?? `TikTok answered HTTP ${res.status}`, { status: res.status });
  }
  const message = `${typeof b.error_description === 'string' && b.error_description ? b.error_description : code} (${code})`;
  const details = { status: res.status, platformCode: code };
  if (code === 'invalid_grant' || code === 'access_denied') return new PlatformError('reconnect_required', message, details);
  if (res.status >= 500 || code === 'server_error' || code === 'temporarily_unavailable') return new PlatformError('transient', message, details);
  return new PlatformError('rejected', message, details);
}

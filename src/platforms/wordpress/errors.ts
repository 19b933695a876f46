import { htmlToText } from '../common/html.js';
import { extractMessage, retryAfterSeconds } from '../http-errors.js';
import { PlatformError, type PlatformResponse } from '../platform.js';

/**
 * WordPress REST errors are `{ code, message, data: { status, params?, details? } }` with the
 * status repeated as the HTTP status. WordPress never reports an error inside HTTP 200, but some
 * of its codes carry a status that would mislead: an upload of a refused file type is
 * `rest_upload_sideload_error` under HTTP **500**, and must not be retried. So the code decides
 * first, the status after.
 */
export interface WordpressErrorBody {
  code?: unknown;
  message?: unknown;
  data?: { status?: unknown; params?: Record<string, unknown> } | null;
}

/** Application-password failures: the stored credentials no longer open the site. */
const AUTH_CODES = new Set([
  'incorrect_password',
  'invalid_username',
  'invalid_email',
  'application_passwords_disabled',
  'application_passwords_disabled_for_user',
  'rest_not_logged_in',
]);

/** Codes that are final refusals whatever their HTTP status (some come as 500). */
const FINAL_CODES = [/^rest_upload_/, /^rest_cannot_/, /^rest_invalid_/, /^rest_forbidden/, /^rest_no_route$/, /^rest_post_invalid/, /^rest_term_invalid/, /^rest_.*_exists$/];

/** Wait used when a host's rate limiter says nothing of when to come back (core WordPress has none). */
export const DEFAULT_RETRY_AFTER_SECONDS = 60;

/** The WordPress error code of an answer, if it has one. */
export function wordpressCode(body: unknown): string | undefined {
  const code = (body as WordpressErrorBody | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** WordPress's message, as text (some carry HTML: `<strong>Error:</strong> Unknown username…`), with the refused parameters. */
export function wordpressMessage(res: PlatformResponse): string {
  const body = res.body as WordpressErrorBody | null;
  const raw = typeof body?.message === 'string' ? body.message : typeof res.body === 'string' ? '' : extractMessage(res.body);
  let message = raw ? htmlToText(raw).replace(/\s+/g, ' ').trim() : '';
  const params = body?.data?.params;
  if (params && typeof params === 'object') {
    const reasons = Object.values(params).filter((v): v is string => typeof v === 'string');
    if (reasons.length > 0) message = `${message} (${reasons.join('; ')})`;
  }
  return message || `WordPress answered HTTP ${res.status}`;
}

/** The classified error of a failed WordPress answer, undefined for a success. */
export function wordpressError(res: PlatformResponse, now = Date.now()): PlatformError | undefined {
  if (res.status < 400) return undefined;
  const code = wordpressCode(res.body);
  const status = res.status;
  const message = wordpressMessage(res);
  const details = { status, ...(code ? { platformCode: code } : {}) };
  if (status === 429) {
    return new PlatformError('rate_limited', message, { ...details, retryAfterSeconds: Math.max(1, retryAfterSeconds(res.headers, now) ?? DEFAULT_RETRY_AFTER_SECONDS) });
  }
  if (code && AUTH_CODES.has(code)) return new PlatformError('reconnect_required', message, details);
  // `rest_cannot_*` come as 401 only for a request WordPress saw as anonymous
  // (rest_authorization_required_code): the application password no longer logs in (revoked,
  // user removed; real sites often answer so instead of `incorrect_password`). As 403 the user is
  // known but lacks the role: a refusal.
  if (code && /^rest_(cannot_|forbidden)/.test(code) && status === 401) return new PlatformError('reconnect_required', message, details);
  if (code && FINAL_CODES.some((r) => r.test(code))) return new PlatformError('rejected', message, details);
  // A 401 without a known code: the password was revoked or the user removed; application
  // passwords never expire, so nothing can be refreshed.
  if (status === 401) return new PlatformError('reconnect_required', message, details);
  if (status >= 500) return new PlatformError('transient', message, { ...details, retryAfterSeconds: retryAfterSeconds(res.headers, now) });
  return new PlatformError('rejected', message, details);
}

/** The body of a successful answer, or the classified error. */
export function wordpressResult<T>(res: PlatformResponse, now = Date.now()): T {
  const err = wordpressError(res, now);
  if (err) throw err;
  return res.body as T;
}

import { errorFromResponse, retryAfterSeconds } from '../http-errors.js';
import { PlatformError, type PlatformResponse } from '../platform.js';

/**
 * Meta's Graph API error body, shared by Facebook, Instagram (both logins) and Threads:
 * `{ error: { message, type, code, error_subcode, error_user_title, error_user_msg, is_transient, fbtrace_id } }`.
 * Each of those platforms' `errors.ts` builds on `metaGraphError` and adds its own subcodes.
 */
export interface MetaGraphErrorBody {
  message?: string;
  type?: string;
  code?: number;
  error_subcode?: number;
  error_user_title?: string;
  error_user_msg?: string;
  is_transient?: boolean;
  fbtrace_id?: string;
}

/** The token is expired, revoked, or the app was removed: subcodes of code 190 (463 = expired). */
const TOKEN_EXPIRED_SUBCODE = 463;
/** Rate limits: application (4), user (17), page (32), API-specific (613), Business Use Case (80000–80014). */
const RATE_LIMIT_CODES = new Set([4, 17, 32, 613, 80000, 80001, 80002, 80003, 80004, 80005, 80006, 80008, 80009, 80014]);
/** "An unknown error occurred" / "Service temporarily unavailable": worth another try. */
const TRANSIENT_CODES = new Set([1, 2]);

/** The `error` object of a Graph answer, wherever it is (also inside HTTP 200 answers). */
export function graphErrorBody(res: PlatformResponse): MetaGraphErrorBody | undefined {
  const body = res.body;
  if (!body || typeof body !== 'object') return undefined;
  const error = (body as { error?: unknown }).error;
  return error && typeof error === 'object' ? (error) : undefined;
}

/**
 * Seconds until the app, page or business regains access, from Meta's usage headers
 * (`X-Business-Use-Case-Usage` carries `estimated_time_to_regain_access` in minutes, per business
 * id and type; `X-App-Usage` / `X-Ad-Account-Usage` only percentages), or `Retry-After`.
 */
export function metaRetryAfterSeconds(headers: Record<string, string>, now = Date.now()): number | undefined {
  const usage = headers['x-business-use-case-usage'];
  if (usage) {
    try {
      const parsed = JSON.parse(usage) as Record<string, { estimated_time_to_regain_access?: number }[]>;
      const minutes = Object.values(parsed)
        .flat()
        .map((u) => u.estimated_time_to_regain_access ?? 0);
      const most = Math.max(0, ...minutes);
      if (most > 0) return most * 60;
    } catch {
      // a malformed header says nothing
    }
  }
  return retryAfterSeconds(headers, now);
}

/** The words a user should read: Meta's user-facing message when it gives one. */
export function metaMessage(e: MetaGraphErrorBody, fallback: string): string {
  const user = [e.error_user_title, e.error_user_msg].filter(Boolean).join(': ');
  return user || e.message || fallback;
}

/**
 * The default classification of a Graph answer (undefined for a success): 190 → the grant is gone
 * (463 = only expired: refresh first), rate-limit codes → `rate_limited` with the wait the headers
 * give, `is_transient` and codes 1/2 → `transient`, 5xx without a body → `transient`, anything else
 * → `rejected` with Meta's user-facing words. Platform `errors.ts` files check their own subcodes
 * first and fall back to this.
 */
export function metaGraphError(res: PlatformResponse, now = Date.now()): PlatformError | undefined {
  const e = graphErrorBody(res);
  if (!e) return errorFromResponse(res, now);
  const code = e.code ?? 0;
  const details = { status: res.status, platformCode: e.error_subcode ? `${code}/${e.error_subcode}` : String(code) };
  const message = metaMessage(e, `Graph API error ${code}`);
  if (code === 190) {
    return e.error_subcode === TOKEN_EXPIRED_SUBCODE ? new PlatformError('auth_expired', message, details) : new PlatformError('reconnect_required', message, details);
  }
  if (/Error validating access token|REVOKED_ACCESS_TOKEN/i.test(e.message ?? '')) return new PlatformError('reconnect_required', message, details);
  if (RATE_LIMIT_CODES.has(code)) return new PlatformError('rate_limited', message, { ...details, retryAfterSeconds: metaRetryAfterSeconds(res.headers, now) });
  if (e.is_transient === true || TRANSIENT_CODES.has(code) || res.status >= 500) return new PlatformError('transient', message, details);
  return new PlatformError('rejected', message, details);
}

/** Throws the classified error of a failed Graph answer; returns the body of a successful one. */
export function graphResult<T>(res: PlatformResponse, now = Date.now()): T {
  const err = metaGraphError(res, now);
  if (err) throw err;
  return res.body as T;
}

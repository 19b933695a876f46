import { extractMessage, retryAfterSeconds } from '../http-errors.js';
import { PlatformError, type PlatformResponse } from '../platform.js';

/**
 * Lemmy (0.19) answers errors as `{ "error": "<snake_case_code>" }` (some with a `message`), with
 * HTTP 400 for most, 401 for `incorrect_login`, 404 for records that do not exist, and 429 with
 * `rate_limit_error` from its rate limiter. Its image host (pict-rs, behind `/pictrs/image`)
 * answers `{ "msg": "…", "code": "…" }`. The body is read before the status: a proxy in front of
 * an instance may answer an error under 200, and an error code is the only reliable signal.
 */

/** Which rate-limit bucket a call counts against: Lemmy's defaults for each (seconds per window). */
export type LemmyAction = 'post' | 'comment' | 'image' | 'search' | 'message' | 'login';

/**
 * Lemmy's default rate-limit windows (`local_site_rate_limit`): 6 posts / 600 s, 6 comments /
 * 600 s, 6 images / 3600 s, 60 searches / 600 s, 180 other calls / 60 s, 6 registrations-logins
 * per 3600 s. Lemmy sends no Retry-After, so a refused call waits out its window.
 */
export const LEMMY_RATE_WINDOW_SECONDS: Record<LemmyAction, number> = {
  post: 600,
  comment: 600,
  image: 3600,
  search: 600,
  message: 60,
  login: 3600,
};

/** Errors that mean the session (JWT) is no longer valid: log in again with the stored password. */
const SESSION_GONE = new Set(['not_logged_in', 'incorrect_login_token', 'expired_token']);

/** Errors no new login can get past: the account itself is banned or gone. */
const ACCOUNT_GONE = new Set(['site_ban', 'deleted', 'person_is_banned_from_site', 'account_deleted', 'user_banned']);

/** Readable words for the codes users meet most; others are shown as Lemmy's code. */
const MESSAGES: Record<string, string> = {
  invalid_post_title: 'the title must be 3–200 characters on one line',
  invalid_body_field: 'the text is too long (posts 50,000 characters, comments 10,000)',
  invalid_url: 'the link must be an http(s) URL',
  couldnt_find_community: 'the community does not exist on this instance',
  couldnt_find_post: 'the post does not exist (any more)',
  couldnt_find_comment: 'the comment does not exist (any more)',
  banned_from_community: 'the account is banned from this community',
  only_mods_can_post_in_community: 'only moderators may post in this community',
  locked: 'the post is locked: no new comments',
  deleted: 'the account was deleted',
  site_ban: 'the account is banned from this instance',
  not_logged_in: 'the session ended',
  incorrect_login: 'wrong username or password',
  rate_limit_error: 'too many posts in a short time (the instance rate limit)',
  missing_totp_token: 'the account has two-factor authentication: give the current code',
  incorrect_totp_token: 'the two-factor code is wrong or expired',
  email_not_verified: 'the account’s email address is not verified yet',
  registration_application_is_pending: 'the account is waiting for the instance admins’ approval',
};

/** `{ error }` of a Lemmy answer, or `msg` of a pict-rs one (not its success `msg: "ok"`). */
export function lemmyErrorCode(body: unknown): string | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const b = body as { error?: unknown; msg?: unknown };
  if (typeof b.error === 'string' && b.error !== '') return b.error;
  return undefined;
}

function describe(code: string, body: unknown): string {
  const extra = body && typeof body === 'object' && typeof (body as { message?: unknown }).message === 'string' ? (body as { message: string }).message : '';
  const words = MESSAGES[code];
  return `Lemmy: ${words ? `${words} (${code})` : code}${extra ? `: ${extra}` : ''}`;
}

/**
 * The classified error of a Lemmy answer, undefined for a success. `action` picks the default wait
 * of a rate limit (Lemmy names none).
 */
export function lemmyError(res: PlatformResponse, action: LemmyAction, now = Date.now()): PlatformError | undefined {
  const code = lemmyErrorCode(res.body);
  const status = res.status;
  const wait = () => retryAfterSeconds(res.headers, now) || LEMMY_RATE_WINDOW_SECONDS[action];
  if (code) {
    const details = { status, platformCode: code };
    if (code === 'rate_limit_error' || status === 429) return new PlatformError('rate_limited', describe(code, res.body), { ...details, retryAfterSeconds: wait() });
    if (SESSION_GONE.has(code)) return new PlatformError('auth_expired', describe(code, res.body), details);
    if (ACCOUNT_GONE.has(code) || code === 'incorrect_login') return new PlatformError('reconnect_required', describe(code, res.body), details);
    if (status >= 500 || code === 'unknown' || code === 'couldnt_update_post_pending') return new PlatformError('transient', describe(code, res.body), details);
    return new PlatformError('rejected', describe(code, res.body), details);
  }
  if (status < 400) return undefined;
  const message = extractMessage(res.body) ?? `HTTP ${status}`;
  if (status === 429) return new PlatformError('rate_limited', `Lemmy: ${message}`, { status, retryAfterSeconds: wait() });
  // A 401 without a code: the JWT was refused before Lemmy's handlers ran.
  if (status === 401) return new PlatformError('auth_expired', `Lemmy: ${message}`, { status });
  if (status >= 500) return new PlatformError('transient', `Lemmy answered HTTP ${status}: ${message}`.slice(0, 300), { status, retryAfterSeconds: retryAfterSeconds(res.headers, now) });
  return new PlatformError('rejected', `Lemmy: ${message}`, { status });
}

/** The body of a successful answer, or the classified error. */
export function lemmyResult<T>(res: PlatformResponse, action: LemmyAction, now = Date.now()): T {
  const err = lemmyError(res, action, now);
  if (err) throw err;
  return res.body as T;
}

/**
 * A pict-rs upload answer through Lemmy: `{ msg: "ok", files: [{ file, delete_token }] }`, or a
 * Lemmy error (`not_logged_in`, `rate_limit_error`) or pict-rs's `{ msg, code }` refusal.
 */
export function pictrsFile(res: PlatformResponse, now = Date.now()): string {
  const body0 = (res.body ?? {}) as { msg?: unknown };
  const pictrsRefusal = !lemmyErrorCode(res.body) && res.status >= 400 && res.status < 500 && res.status !== 401 && res.status !== 429 && typeof body0.msg === 'string';
  const lemmy = pictrsRefusal ? undefined : lemmyError(res, 'image', now);
  if (lemmy) throw lemmy;
  const body = (res.body ?? {}) as { msg?: unknown; files?: { file?: unknown }[] };
  const file = Array.isArray(body.files) ? body.files[0]?.file : undefined;
  if (body.msg === 'ok' && typeof file === 'string' && file !== '') return file;
  const msg = typeof body.msg === 'string' ? body.msg : `HTTP ${res.status}`;
  throw new PlatformError('rejected', `The instance's image host refused the picture: ${msg}`, { status: res.status });
}

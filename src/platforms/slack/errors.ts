import { extractMessage, retryAfterSeconds } from '../http-errors.js';
import { PlatformError, type PlatformResponse } from '../platform.js';

/**
 * Slack's Web API answers almost every error with HTTP 200 and `{ ok: false, error: '<code>' }`
 * (plus `needed`/`provided` for `missing_scope`). Only rate limits use a status (429 with
 * `Retry-After`), and outages 5xx. The body decides.
 */
interface SlackAnswer {
  ok?: boolean;
  error?: string;
  needed?: string;
  warning?: string;
}

/** The grant is gone or too narrow: only a new installation helps. */
const RECONNECT = new Set([
  'invalid_auth',
  'not_authed',
  'token_revoked',
  'token_expired',
  'account_inactive',
  'missing_scope',
  'no_permission',
  'not_allowed_token_type',
  'team_access_not_granted',
  'org_login_required',
  'ekm_access_denied',
  'app_uninstalled',
]);

const TRANSIENT = new Set(['internal_error', 'fatal_error', 'service_unavailable', 'request_timeout', 'team_added_to_org']);

const EXPLAIN: Record<string, string> = {
  channel_not_found: 'the channel does not exist or the app cannot see it',
  not_in_channel: 'the app is not a member of this channel; invite it with /invite',
  is_archived: 'the channel is archived',
  msg_too_long: 'the message is too long',
  no_text: 'the message is empty',
  invalid_blocks: 'the message layout was refused',
  restricted_action: 'a workspace setting forbids the app to post here',
  restricted_action_read_only_channel: 'the channel is read-only',
  restricted_action_thread_only_channel: 'the channel only accepts thread replies',
  thread_not_found: 'the message to reply to no longer exists',
  too_many_attachments: 'too many attachments',
  file_not_found: 'an uploaded file was not found',
  invalid_arguments: 'the request was malformed',
  invalid_auth: 'the token is invalid',
  not_authed: 'no token was sent',
  token_revoked: 'the app was uninstalled or its token revoked',
  token_expired: 'the token expired (token rotation is on, which is not supported: turn it off)',
  account_inactive: 'the installing account or workspace was deactivated',
  missing_scope: 'the app lacks a permission',
  ratelimited: 'Slack asks to slow down',
};

/** `channel_not_found: the channel does not exist or the app cannot see it`. */
export function explainSlack(code: string, needed?: string): string {
  const why = EXPLAIN[code];
  const scope = code === 'missing_scope' && needed ? ` (${needed}); reconnect Slack to grant it` : '';
  return why ? `${code}: ${why}${scope}` : code;
}

/** The classified error of a Slack answer, or undefined when it is `ok: true`. */
export function slackError(res: PlatformResponse, now = Date.now()): PlatformError | undefined {
  const body = (typeof res.body === 'object' && res.body !== null ? res.body : {}) as SlackAnswer;
  const code = typeof body.error === 'string' ? body.error : undefined;
  const details = { status: res.status, ...(code ? { platformCode: code } : {}) };
  if (res.status === 429 || code === 'ratelimited' || code === 'rate_limited') {
    return new PlatformError('rate_limited', explainSlack(code ?? 'ratelimited'), { ...details, retryAfterSeconds: retryAfterSeconds(res.headers, now) });
  }
  if (res.status >= 500) return new PlatformError('transient', code ? explainSlack(code) : (extractMessage(res.body) ?? `HTTP ${res.status}`), details);
  if (body.ok === true && res.status < 300) return undefined;
  if (body.ok !== false || !code) {
    if (res.status >= 400) return new PlatformError('rejected', extractMessage(res.body) ?? `HTTP ${res.status}`, details);
    return new PlatformError('transient', 'Slack answered without ok', details);
  }
  const message = explainSlack(code, body.needed);
  if (RECONNECT.has(code)) return new PlatformError('reconnect_required', message, details);
  if (TRANSIENT.has(code)) return new PlatformError('transient', message, details);
  return new PlatformError('rejected', message, details);
}

/** The body of an `ok: true` answer, or the classified error. */
export function slackResult<T>(res: PlatformResponse, now = Date.now()): T {
  const err = slackError(res, now);
  if (err) throw err;
  return res.body as T;
}

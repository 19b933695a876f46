import { graphErrorBody, metaGraphError, metaMessage, metaRetryAfterSeconds } from '../common/meta-graph.js';
import { PlatformError, type PlatformResponse } from '../platform.js';

/**
 * Facebook Page errors: Meta's Graph shape (`common/meta-graph.ts`: 190 → reconnect, 463 →
 * expired, 4/17/32/613 and Business Use Case codes → rate limited with the wait from
 * `X-Business-Use-Case-Usage`, `is_transient` and 1/2 → transient, anything else rejected with
 * Meta's words), plus the Page subcodes Facebook documents for publishing.
 */

/** The Page cannot be published to by this login any more (task removed, publishing authorisation needed). */
const RECONNECT_SUBCODES = new Set([1404078]);
/** Permission errors (#10, #200): the grant lacks a scope or the user lost the Page task. */
const PERMISSION_CODES = new Set([10, 200]);
/** Video upload and "service unavailable" hiccups Meta asks to retry. */
const TRANSIENT_SUBCODES = new Set([1363047, 1609010, 1363040]);
/** "You're posting too fast" (the Page's publishing pace, not the API's call count). */
const TOO_FAST_SUBCODES = new Set([1390008]);
/** Facebook names no wait for publishing too fast: a minute. */
export const TOO_FAST_WAIT_SECONDS = 60;

export function facebookError(res: PlatformResponse, now = Date.now()): PlatformError | undefined {
  const e = graphErrorBody(res);
  if (!e) return metaGraphError(res, now);
  const code = e.code ?? 0;
  const subcode = e.error_subcode;
  const details = { status: res.status, platformCode: subcode ? `${code}/${subcode}` : String(code) };
  const message = metaMessage(e, `Facebook error ${code}`);
  if ((subcode !== undefined && RECONNECT_SUBCODES.has(subcode)) || PERMISSION_CODES.has(code)) return new PlatformError('reconnect_required', message, details);
  if (subcode !== undefined && TOO_FAST_SUBCODES.has(subcode)) {
    return new PlatformError('rate_limited', message, { ...details, retryAfterSeconds: metaRetryAfterSeconds(res.headers, now) ?? TOO_FAST_WAIT_SECONDS });
  }
  if (subcode !== undefined && TRANSIENT_SUBCODES.has(subcode)) return new PlatformError('transient', message, details);
  return metaGraphError(res, now);
}

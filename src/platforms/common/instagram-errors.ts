import { graphErrorBody, metaGraphError, metaMessage, metaRetryAfterSeconds } from './meta-graph.js';
import { PlatformError, type PlatformResponse } from '../platform.js';

/**
 * Instagram errors (both logins; Instagram Login's `graph.instagram.com` answers the same shape):
 * Meta's Graph classification (`common/meta-graph.ts`) plus the content-publishing subcodes.
 */

/** The account's 24-hour publishing quota (code 9). */
const PUBLISHING_LIMIT_SUBCODE = 2207042;
/** Without a header, wait an hour: the rolling 24-hour window frees one post as an older one ages out. */
export const PUBLISHING_LIMIT_WAIT_SECONDS = 3600;
/**
 * Fetch timeouts, fetch/upload hiccups, "media could not be created" and "Media ID is not available"
 * (a container not ready yet): Meta's own advice is to try again.
 */
const TRANSIENT_SUBCODES = new Set([2207003, 2207052, 2207053, 2207032, 2207082, 2207027]);
/** Permission errors (#10, #200): the grant lacks a scope or the account is no longer reachable. */
const PERMISSION_CODES = new Set([10, 200]);

export function instagramError(res: PlatformResponse, now = Date.now()): PlatformError | undefined {
  const e = graphErrorBody(res);
  if (!e) return metaGraphError(res, now);
  const code = e.code ?? 0;
  const subcode = e.error_subcode;
  const details = { status: res.status, platformCode: subcode ? `${code}/${subcode}` : String(code) };
  const message = metaMessage(e, `Instagram error ${code}`);
  if (subcode === PUBLISHING_LIMIT_SUBCODE) {
    return new PlatformError('rate_limited', message, { ...details, retryAfterSeconds: metaRetryAfterSeconds(res.headers, now) ?? PUBLISHING_LIMIT_WAIT_SECONDS });
  }
  if (PERMISSION_CODES.has(code) || /not an instagram (business|professional)/i.test(e.message ?? '')) return new PlatformError('reconnect_required', message, details);
  if (subcode !== undefined && TRANSIENT_SUBCODES.has(subcode)) return new PlatformError('transient', message, details);
  return metaGraphError(res, now);
}

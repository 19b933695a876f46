import { errorFromResponse, extractMessage } from '../http-errors.js';
import { PlatformError, type PlatformResponse } from '../platform.js';

/**
 * VK API answers (almost) everything with HTTP 200; a failure is the body
 * `{ error: { error_code, error_msg, request_params: [{ key, value }] } }`. The codes that matter:
 *
 * - 5 "User authorization failed: …": `access_token has expired.` is a token that merely ran out
 *   (1 hour with VK ID): refreshed when the channel has a refresh token (`auth_expired`). Any other
 *   reason (invalid token, the user logged out, the app removed) is a grant that is gone.
 * - 6 "Too many requests per second" (3/s per user token), 9 "Flood control", 29 "Rate limit
 *   reached" (a method's daily quota): `rate_limited`, waiting 1 s, 1 h and 1 h.
 * - 1 "Unknown error occurred", 10 "Internal server error", 13 "Runtime error": `transient`.
 * - 14 "Captcha needed": VK wants a person to solve a captcha, which a scheduler cannot: `rejected`,
 *   saying so.
 * - 17 "Validation required" and 18 "User was deleted or banned": the user must sign in to VK
 *   again: `reconnect_required`.
 * - 15 / 214 / 219 / 220 (access denied, adding posts denied, advertisement post was recently
 *   added, too many recipients), 100 (invalid parameter) and the rest: `rejected` with VK's text.
 */
export interface VkErrorBody {
  error_code?: number;
  error_msg?: string;
  request_params?: { key: string; value: string }[];
}

/** Seconds VK wants between attempts for its rate-limit codes (VK names none in its answers). */
export const RATE_LIMIT_WAIT_SECONDS: Record<number, number> = { 6: 1, 9: 3600, 29: 3600 };

const TRANSIENT = new Set([1, 10, 13]);
const RECONNECT = new Set([17, 18]);

/** The `error` object of a VK API answer, if it is one. */
export function vkErrorOf(body: unknown): VkErrorBody | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const e = (body as { error?: unknown }).error;
  if (!e || typeof e !== 'object') return undefined;
  const err = e as VkErrorBody;
  return typeof err.error_code === 'number' ? err : undefined;
}

/** Classifies one VK API error. `canRefresh`: the channel holds a refresh token. */
export function classifyVkError(e: VkErrorBody, opts: { canRefresh?: boolean } = {}): PlatformError {
  const code = e.error_code ?? 0;
  const msg = (e.error_msg ?? `VK error ${code}`).trim();
  const details = { platformCode: String(code), status: 200 };
  if (code === 5) {
    const expired = /expired/i.test(msg);
    if (expired && opts.canRefresh !== false) return new PlatformError('auth_expired', msg, details);
    return new PlatformError('reconnect_required', expired ? `${msg} (no refresh token is stored: reconnect the channel)` : msg, details);
  }
  const wait = RATE_LIMIT_WAIT_SECONDS[code];
  if (wait !== undefined) return new PlatformError('rate_limited', msg, { ...details, retryAfterSeconds: wait });
  if (TRANSIENT.has(code)) return new PlatformError('transient', msg, details);
  if (RECONNECT.has(code)) return new PlatformError('reconnect_required', msg, details);
  if (code === 14) {
    return new PlatformError('rejected', `VK asks for a captcha before accepting this (${msg}): post it from VK itself, or try again later`, details);
  }
  return new PlatformError('rejected', msg, details);
}

/** Classifies a VK API answer (the body first: errors arrive under HTTP 200); undefined when it succeeded. */
export function vkError(res: PlatformResponse, opts: { canRefresh?: boolean; now?: number } = {}): PlatformError | undefined {
  const e = vkErrorOf(res.body);
  if (e) return classifyVkError(e, opts);
  const http = errorFromResponse(res, opts.now);
  if (http) return http;
  if (!res.body || typeof res.body !== 'object' || !('response' in res.body)) {
    return new PlatformError('transient', `VK answered without a response: ${extractMessage(res.body) ?? `HTTP ${res.status}`}`, { status: res.status, outcomeUnknown: true });
  }
  return undefined;
}

/**
 * A failed upload to VK's upload host (`upload_url`): an HTTP error, or a 200 whose JSON says
 * `{ error: "ERR_UPLOAD_…: …" }`, or a photo upload whose `photo` is `[]` (VK could not read the file).
 */
export function uploadError(res: PlatformResponse, what: 'photo' | 'video'): PlatformError | undefined {
  const http = errorFromResponse(res);
  if (http) return new PlatformError(http.kind, `VK's ${what} upload failed: ${http.message}`, http.details);
  const b = res.body;
  if (!b || typeof b !== 'object') return new PlatformError('transient', `VK's ${what} upload answered ${typeof b === 'string' ? b.slice(0, 200) : 'nothing'}`, { status: res.status });
  const err = (b as { error?: unknown; error_descr?: unknown }).error;
  if (typeof err === 'string') {
    const descr = (b as { error_descr?: unknown }).error_descr;
    return new PlatformError('rejected', `VK's ${what} upload failed: ${err}${typeof descr === 'string' ? ` (${descr})` : ''}`, { platformCode: err.split(':')[0] });
  }
  if (what === 'photo') {
    const photo = (b as { photo?: unknown }).photo;
    if (typeof photo !== 'string' || photo === '' || photo === '[]') return new PlatformError('rejected', 'VK could not read the picture (its upload server kept no photo): JPG, PNG or GIF up to 50 MB');
  }
  return undefined;
}

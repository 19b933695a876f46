import { retryAfterSeconds } from '../http-errors.js';
import { PlatformError, type PlatformResponse } from '../platform.js';

/**
 * X API v2 errors are problem-details objects: `{ title, type, status, detail }`, with an
 * `errors[]` list for invalid requests. Reads (`GET /2/tweets/{id}`…) also report missing
 * resources under HTTP 200 as `{ errors: [...] }` without `data`; writes never do.
 */
interface XProblem {
  title?: string;
  type?: string;
  status?: number;
  detail?: string;
  errors?: { message?: string; detail?: string; title?: string; type?: string; parameters?: Record<string, unknown> }[];
}

function problemOf(body: unknown): XProblem {
  return typeof body === 'object' && body !== null ? body : {};
}

/** The most specific message X gave: the `errors[]` entries beat the generic `detail`. */
export function xMessage(body: unknown, fallback: string): string {
  const p = problemOf(body);
  const listed = (p.errors ?? []).map((e) => e.message ?? e.detail ?? e.title).filter((m): m is string => typeof m === 'string' && m !== '');
  if (listed.length > 0) return listed.join('; ').slice(0, 500);
  return (p.detail ?? p.title ?? (typeof body === 'string' && body.trim() !== '' ? body.trim() : fallback)).slice(0, 500);
}

/** Problem types after which the grant is useless whatever we retry. */
const RECONNECT_TYPES = ['https://api.twitter.com/2/problems/unsupported-authentication', 'https://api.twitter.com/2/problems/client-forbidden'];

/**
 * Classifies an X answer; undefined when it succeeded.
 *
 * - 401 → `auth_expired` (access tokens last 2 h: refresh, then reconnect if that fails);
 * - 403 "Unsupported Authentication" / client-forbidden → `reconnect_required`;
 * - 429 → `rate_limited`, waiting until `x-rate-limit-reset` (epoch seconds; X sends no
 *   Retry-After), or until the 24-hour user cap resets when that one is spent;
 * - 429 usage-capped (the app's monthly quota) → `rejected`: no short retry will help;
 * - other 4xx (duplicate content 403, invalid request 400…) → `rejected` with X's message;
 * - 5xx → `transient`.
 */
export function xError(res: PlatformResponse, now = Date.now()): PlatformError | undefined {
  if (res.status < 400) return undefined;
  const p = problemOf(res.body);
  const message = xMessage(res.body, `X answered HTTP ${res.status}`);
  const details = { status: res.status, platformCode: p.type && p.type !== 'about:blank' ? p.type : p.title };
  if (res.status === 401) return new PlatformError('auth_expired', message, details);
  if (p.type && RECONNECT_TYPES.includes(p.type)) return new PlatformError('reconnect_required', message, details);
  if (res.status === 429) {
    if (p.type?.endsWith('/usage-capped')) return new PlatformError('rejected', `X app usage cap reached: ${message}`, details);
    const dailySpent = res.headers['x-user-limit-24hour-remaining'] === '0';
    const headers = dailySpent && res.headers['x-user-limit-24hour-reset'] ? { 'x-rate-limit-reset': res.headers['x-user-limit-24hour-reset'] } : res.headers;
    return new PlatformError('rate_limited', message, { ...details, retryAfterSeconds: retryAfterSeconds(headers, now) });
  }
  if (res.status >= 500) return new PlatformError('transient', message, details);
  return new PlatformError('rejected', message, details);
}

/** The `data` of a successful answer, or the classified error (also for 200 answers without `data`). */
export function xData<T>(res: PlatformResponse, now = Date.now()): T {
  const err = xError(res, now);
  if (err) throw err;
  const body = problemOf(res.body) as XProblem & { data?: T };
  if (body.data === undefined) {
    throw new PlatformError('rejected', xMessage(res.body, 'X answered without data'), { status: res.status, platformCode: body.errors?.[0]?.type ?? body.errors?.[0]?.title });
  }
  return body.data;
}

import { extractMessage, retryAfterSeconds } from '../http-errors.js';
import { PlatformError, type PlatformResponse } from '../platform.js';

/** One entry of a GraphQL `errors` array as Hashnode (Apollo Server) answers it. */
export interface GqlError {
  message?: string;
  path?: (string | number)[];
  extensions?: { code?: string };
}

/** Hashnode's gateway answers 429 with Retry-After; when it says nothing, a minute (its limits are per minute). */
export const HASHNODE_DEFAULT_RETRY_SECONDS = 60;

const RATE_CODES = new Set(['TOO_MANY_REQUESTS', 'RATE_LIMITED', 'RATE_LIMIT_EXCEEDED']);

/**
 * Classifies a Hashnode GraphQL answer. The body decides first: an `errors` array is an error
 * even under HTTP 200 (Apollo answers resolver errors — authentication, permission, validation —
 * with 200), classified by `extensions.code`: `UNAUTHENTICATED` → the token is gone (reconnect),
 * rate-limit codes → `rate_limited`, `INTERNAL_SERVER_ERROR` → `transient`, anything else
 * (`BAD_USER_INPUT`, `GRAPHQL_VALIDATION_FAILED`, `FORBIDDEN`, `NOT_FOUND`) → `rejected` with
 * Hashnode's words. Then the status: 429 (its CDN's rate limit), 5xx, other 4xx.
 */
export function hashnodeError(res: PlatformResponse, now = Date.now()): PlatformError | undefined {
  const body = (typeof res.body === 'object' && res.body !== null ? res.body : {}) as { errors?: GqlError[] };
  const errors = Array.isArray(body.errors) ? body.errors : [];
  const wait = () => retryAfterSeconds(res.headers, now);
  if (errors.length > 0) {
    const first = errors[0]!;
    const code = first.extensions?.code ?? '';
    const message = errors.map((e) => e.message?.trim()).filter(Boolean).join('; ') || `Hashnode answered ${code || `HTTP ${res.status}`}`;
    const details = { status: res.status, platformCode: code || undefined };
    if (code === 'UNAUTHENTICATED') return new PlatformError('reconnect_required', `Hashnode refused the token: ${message}`, { ...details, field: 'token' });
    if (RATE_CODES.has(code) || res.status === 429) return new PlatformError('rate_limited', message, { ...details, retryAfterSeconds: wait() ?? HASHNODE_DEFAULT_RETRY_SECONDS });
    if (code === 'INTERNAL_SERVER_ERROR' || res.status >= 500) return new PlatformError('transient', message, { ...details, retryAfterSeconds: wait() });
    return new PlatformError('rejected', message, details);
  }
  if (res.status < 400) return undefined;
  const message = extractMessage(res.body) ?? `Hashnode answered HTTP ${res.status}`;
  if (res.status === 401) return new PlatformError('reconnect_required', `Hashnode refused the token: ${message}`, { status: 401, field: 'token' });
  if (res.status === 429) return new PlatformError('rate_limited', message, { status: 429, retryAfterSeconds: wait() ?? HASHNODE_DEFAULT_RETRY_SECONDS });
  if (res.status >= 500) return new PlatformError('transient', message, { status: res.status, retryAfterSeconds: wait() });
  return new PlatformError('rejected', message, { status: res.status });
}

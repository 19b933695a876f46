import { instagramError } from '../common/instagram-errors.js';
import { PlatformError, type PlatformResponse } from '../platform.js';

/**
 * Instagram Login's Graph errors are Instagram's, shared with `instagram` (both logins answer the
 * same shape): `common/instagram-errors.ts`. Its own is the OAuth host's answer, `loginError`.
 */
export * from '../common/instagram-errors.js';

/** api.instagram.com answers OAuth failures as `{ error_type, code, error_message }`. */
export function loginError(res: PlatformResponse): PlatformError | undefined {
  const b = (res.body ?? {}) as { error_type?: string; code?: number; error_message?: string };
  if (typeof b.error_message === 'string') return new PlatformError('rejected', `Instagram refused the authorisation: ${b.error_message}`, { status: res.status, platformCode: b.error_type });
  const graph = instagramError(res);
  return graph ? new PlatformError(graph.kind === 'transient' || graph.kind === 'rate_limited' ? graph.kind : 'rejected', `Instagram refused the authorisation: ${graph.message}`, graph.details) : undefined;
}

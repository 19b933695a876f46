import { AppError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { hashCredential, OAUTH_TOKEN_PREFIX } from '../../lib/tokens.js';
import type { SlidingLogStore } from '../../rate-limit/store.js';
import type { AuthRepository, CredentialOwner } from './auth.repository.js';

export interface AuthContext {
  organizationId: string;
  credential: { kind: 'api_key' | 'oauth_token'; id: string };
  planName: string;
  /** requests per window for this organisation (plan override or the configured default) */
  rateLimit: number;
}

export interface AuthServiceOptions {
  defaultRateLimit: number;
  failure: { max: number; windowSeconds: number };
  /** last-used times are written at most this often per credential (a write per request would be waste) */
  touchIntervalMs?: number;
  /**
   * How long a resolved credential is remembered in this process (0 = ask the database every
   * time). Revocations and plan changes made through this process apply at once; those made
   * through another process apply within this time.
   */
  cacheMs?: number;
}

// Credentials never contain whitespace, so "<word> <value>" is a scheme word before the credential.
const SCHEME_WORD = /^\S+\s+\S/;

/**
 * Resolves the raw `Authorization` header (API.md §2) to an organisation. Failed attempts are
 * counted per client address and throttled, independently of the API rate limit.
 */
export function createAuthService(deps: {
  auth: AuthRepository;
  store: SlidingLogStore;
  clock: Clock;
  options: AuthServiceOptions;
}) {
  const { auth, store, clock, options } = deps;
  const failWindowMs = options.failure.windowSeconds * 1000;
  const touchInterval = options.touchIntervalMs ?? 60_000;
  const lastTouched = new Map<string, number>();
  const cacheMs = options.cacheMs ?? 0;
  const cache = new Map<string, { owner: CredentialOwner; until: number }>();

  async function lookup(value: string, isToken: boolean, now: number): Promise<CredentialOwner | undefined> {
    const hash = hashCredential(value);
    const hit = cache.get(hash);
    if (hit && hit.until > now) return hit.owner;
    const owner = isToken ? await auth.findActiveOauthToken(hash, new Date(now)) : await auth.findActiveApiKey(hash);
    if (owner && cacheMs > 0) {
      if (cache.size >= 10_000) cache.clear();
      cache.set(hash, { owner, until: now + cacheMs });
    } else {
      cache.delete(hash);
    }
    return owner;
  }

  function touch(kind: AuthContext['credential']['kind'], id: string) {
    const now = clock.now();
    if (now - (lastTouched.get(id) ?? -Infinity) < touchInterval) return;
    lastTouched.set(id, now);
    if (lastTouched.size > 10_000) lastTouched.clear();
    const write = kind === 'api_key' ? auth.touchApiKey(id, new Date(now)) : auth.touchOauthToken(id, new Date(now));
    // Bookkeeping only: a failed write must not fail the request.
    write.catch(() => lastTouched.delete(id));
  }

  /**
   * A failed attempt meets the throttle: past the limit from this address it answers 429 (and is
   * not counted, so a steady stream of bad attempts does not extend the wait forever); below it,
   * it is counted and answers its own 401.
   */
  async function refuse(address: string, failure: AppError, now: number): Promise<AppError> {
    const key = `authfail:${address}`;
    const failures = await store.peek(key, failWindowMs, now);
    if (failures.count >= options.failure.max) {
      const retryAfter = Math.max(1, Math.ceil((failures.oldest + failWindowMs - now) / 1000));
      return new AppError('AUTH_THROTTLED', `Too many failed authentication attempts from this address; retry in ${retryAfter} s`, {
        headers: { 'retry-after': String(retryAfter) },
      });
    }
    await store.take(key, Number.MAX_SAFE_INTEGER, failWindowMs, now);
    return failure;
  }

  return {
    /** Forget cached credentials of an organisation (or one credential) after a change to them. */
    invalidate(filter: { organizationId?: string; credentialId?: string }) {
      for (const [hash, { owner }] of cache) {
        if (owner.organizationId === filter.organizationId || owner.credentialId === filter.credentialId) cache.delete(hash);
      }
    },

    /**
     * A valid credential always passes, whatever failed before from its address (behind a reverse
     * proxy every client shares one address, and a stranger's bad attempts must not lock a user
     * out); only failures are counted and throttled. Keys are 256-bit random values, so the
     * throttle is there to slow noise and probing, not to make guessing feasible-but-slow.
     */
    async authenticate(header: string | undefined, address: string): Promise<AuthContext> {
      const now = clock.now();
      const value = header?.trim() ?? '';
      if (value === '') {
        throw await refuse(address, new AppError('AUTH_MISSING', 'No API key found: send your API key or access token in the Authorization header'), now);
      }
      if (SCHEME_WORD.test(value)) {
        const message = 'Send the credential alone in the Authorization header, without a scheme word such as "Bearer"';
        throw await refuse(address, new AppError('AUTH_SCHEME_NOT_ALLOWED', message), now);
      }
      const isToken = value.startsWith(OAUTH_TOKEN_PREFIX);
      const owner = await lookup(value, isToken, now);
      if (!owner) {
        throw await refuse(address, new AppError('AUTH_INVALID', isToken ? 'Invalid OAuth token' : 'Invalid API key'), now);
      }
      const kind = isToken ? 'oauth_token' : 'api_key';
      touch(kind, owner.credentialId);
      return {
        organizationId: owner.organizationId,
        credential: { kind, id: owner.credentialId },
        planName: owner.planName,
        rateLimit: owner.planRateLimit ?? options.defaultRateLimit,
      };
    },
  };
}

export type AuthService = ReturnType<typeof createAuthService>;

import { AppError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { hashCredential, OAUTH_TOKEN_PREFIX } from '../../lib/tokens.js';
import type { SlidingLogStore } from '../../rate-limit/store.js';
import type { AuthRepository, CredentialOwner } from './auth.repository.js';
import type { MemberRole } from '../../db/schema/index.js';
import { csrfTokens } from '../../lib/csrf-tokens.js';
import type { SessionContext, SessionsService } from '../sessions/sessions.service.js';
import type { Actor } from '../../core/actor.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface AuthContext {
  organizationId: string;
  credential: { kind: 'api_key' | 'oauth_token' | 'session'; id: string };
  planName: string;
  /** whose budget the request counts against: the organisation's, or (the web app) the person's */
  rateKey: string;
  /** requests per window for that budget (plan override or the configured default; the app's own limit) */
  rateLimit: number;
  rateWindowSeconds: number;
  /**
   * The credential may only read (an OAuth token granted `mcp:read` alone): the API refuses its
   * state-changing requests and MCP its tools that change anything, with INSUFFICIENT_SCOPE.
   */
  readOnly: boolean;
  /** the signed-in person and their role, for calls of the first-party web app (session cookie) */
  session?: SessionContext & { role: MemberRole };
  /** a sandbox key (`tdk_test_…`, issue 28): it sees and touches sandbox channels and their posts only (`http/sandbox-scope.ts`) */
  sandbox?: boolean;
  /** who acts, for the activity log: the person (name, else email), the API key's name or the OAuth app's (`core/actor.ts`) */
  actor: Actor;
}

export interface AuthServiceOptions {
  defaultRateLimit: number;
  rateWindowSeconds: number;
  /** the web app's calls (session cookie): a per-person budget instead of the organisation's */
  appRateLimit: { max: number; windowSeconds: number };
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

/** A token's scope lets it only read when it names read scopes alone (an empty scope is an old token: full access). */
export function isReadOnlyScope(scope: string): boolean {
  const names = scope.split(' ').filter(Boolean);
  return names.length > 0 && names.every((n) => READ_ONLY_SCOPES.has(n));
}
const READ_ONLY_SCOPES = new Set(['mcp:read']);

// Credentials never contain whitespace, so "<word> <value>" is a scheme word before the credential.
const SCHEME_WORD = /^\S+\s+\S/;

/**
 * Resolves the raw `Authorization` header (API.md §2) to an organisation. Failed attempts are
 * counted per client address and throttled, independently of the API rate limit.
 */
export function createAuthService(deps: {
  auth: AuthRepository;
  sessions: SessionsService;
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
        readOnly: owner.scope !== null && isReadOnlyScope(owner.scope),
        ...(owner.sandbox ? { sandbox: true } : {}),
        actor: isToken
          ? { kind: 'oauth_app', id: owner.appId ?? null, name: owner.name, credential: { kind, id: owner.credentialId } }
          : { kind: 'api_key', id: owner.credentialId, name: owner.name, credential: { kind, id: owner.credentialId }, approvalExempt: owner.approvalExempt === true },
        rateKey: `api:${owner.organizationId}`,
        rateLimit: owner.planRateLimit ?? options.defaultRateLimit,
        rateWindowSeconds: options.rateWindowSeconds,
      };
    },

    /**
     * The first-party web app's calls: no Authorization header, the session cookie instead. They act
     * for the organisation the person works in (any role; routes that manage people or keys check
     * the role), state-changing ones carry the session's CSRF token in `X-CSRF-Token`, and they
     * count against a budget of the person's own, not the organisation's API budget.
     */
    async authenticateSession(cookie: string, req: { method: string; csrfToken: string | undefined; fetchSite: string | undefined; address: string }): Promise<AuthContext> {
      const now = clock.now();
      const session = await deps.sessions.resolve(cookie);
      if (!session) throw await refuse(req.address, new AppError('SESSION_REQUIRED', 'Your session has ended: sign in again at /account/login'), now);
      if (!SAFE_METHODS.has(req.method)) {
        if (req.fetchSite === 'cross-site' || !req.csrfToken || !csrfTokens.verify(session.csrfSecret, req.csrfToken)) {
          throw new AppError('CSRF_FAILED', 'A call made with the session cookie must carry the session\'s CSRF token in X-CSRF-Token (GET /me gives it)');
        }
      }
      let member = session.organizationId ? await auth.findMember(session.organizationId, session.userId) : undefined;
      if (!member) {
        // The organisation the session worked in is gone (left, removed, deleted): work in another.
        const fallback = await auth.findFirstMembership(session.userId);
        if (fallback) {
          await deps.sessions.switchOrganization(session.id, fallback);
          session.organizationId = fallback;
          member = await auth.findMember(fallback, session.userId);
        }
      }
      if (!member) throw new AppError('FORBIDDEN', 'You do not belong to any organisation yet: accept an invitation, or create one at /account');
      return {
        organizationId: member.organizationId,
        credential: { kind: 'session', id: session.id },
        readOnly: false,
        planName: member.planName,
        rateKey: `app:${session.userId}`,
        rateLimit: options.appRateLimit.max,
        rateWindowSeconds: options.appRateLimit.windowSeconds,
        session: { ...session, role: member.role },
        actor: { kind: 'user', id: session.userId, name: session.name.trim() || session.email, role: member.role, credential: { kind: 'session', id: session.id } },
      };
    },
  };
}

export type AuthService = ReturnType<typeof createAuthService>;

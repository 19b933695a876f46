import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import '@fastify/cookie';
import { AppError } from '../errors.js';
import { csrfTokens } from '../lib/csrf-tokens.js';
import type { SessionContext, SessionsService } from '../modules/sessions/sessions.service.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in person of a first-party page or call (undefined: nobody). */
    session: SessionContext | undefined;
  }
}

export interface SessionCookieOptions {
  /** `Secure` and the `__Host-` prefix (PUBLIC_URL is https) */
  secure: boolean;
  /** lifetime of the session cookie (the session's own expiry is enforced server-side) */
  maxAgeSeconds: number;
}

/**
 * Cookie names. Behind https the `__Host-` prefix makes browsers refuse the cookie unless it is
 * Secure, host-only and for `/`, so a sibling subdomain cannot plant or overwrite it.
 */
export function cookieNames(secure: boolean) {
  const prefix = secure ? '__Host-' : '';
  return { session: `${prefix}tidings_session`, csrf: `${prefix}tidings_csrf` };
}

/**
 * The first-party session on a scope: reads the session cookie (every request of the scope),
 * and gives routes the helpers to start and end sessions and to check CSRF tokens. Pages use it
 * now; the calendar app's API calls will use the same sessions.
 */
export function installSessions(scope: FastifyInstance, deps: { sessions: SessionsService; cookies: SessionCookieOptions }) {
  const names = cookieNames(deps.cookies.secure);
  const base = { path: '/', httpOnly: true, sameSite: 'lax' as const, secure: deps.cookies.secure };

  scope.decorateRequest('session', undefined);
  scope.addHook('onRequest', async (req) => {
    req.session = await deps.sessions.resolve(req.cookies[names.session]);
  });

  return {
    /** Sets the cookie of a session just started (sign-in, rotation). */
    setSession(reply: FastifyReply, token: string) {
      void reply.setCookie(names.session, token, { ...base, maxAge: deps.cookies.maxAgeSeconds });
    },
    clearSession(reply: FastifyReply) {
      void reply.clearCookie(names.session, base);
    },

    /**
     * The secret this browser's CSRF tokens are made with: the session's, or before sign-in a
     * random one kept in its own cookie (so the sign-in and sign-up forms are protected too).
     */
    csrfToken(req: FastifyRequest, reply: FastifyReply): string {
      if (req.session) return csrfTokens.create(req.session.csrfSecret);
      let secret = req.cookies[names.csrf];
      if (!secret || secret.length > 100) {
        secret = csrfTokens.newSecret();
        void reply.setCookie(names.csrf, secret, base);
      }
      return csrfTokens.create(secret);
    },

    /**
     * Refuses a state-changing request that does not carry this browser's CSRF token, or that
     * the browser says came from another site (Fetch Metadata).
     */
    checkCsrf(req: FastifyRequest, token: unknown) {
      if (req.headers['sec-fetch-site'] === 'cross-site') throw new AppError('CSRF_FAILED', 'This form was sent from another site');
      const secret = req.session?.csrfSecret ?? req.cookies[names.csrf];
      if (typeof token !== 'string' || !secret || !csrfTokens.verify(secret, token)) {
        throw new AppError('CSRF_FAILED', 'The form expired or did not come from this site: reload the page and try again');
      }
    },
  };
}

export type SessionHelpers = ReturnType<typeof installSessions>;

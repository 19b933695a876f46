import '@fastify/cookie';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import type { AuthContext, AuthService } from '../modules/auth/auth.service.js';
import { runAsActor } from '../core/actor.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the auth hook on every route of the authenticated scope. */
    auth: AuthContext;
  }
}

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Authenticates every request of the scope it is installed in (API.md §2): the `Authorization`
 * header (API key or `pos_` token); without one, the web app's session cookie.
 */
export function installAuth(app: FastifyInstance, auth: AuthService, opts: { sessionCookie: string }) {
  app.decorateRequest('auth', null as unknown as AuthContext);
  app.addHook('onRequest', async (req) => {
    const header = req.headers.authorization;
    const cookie = req.cookies[opts.sessionCookie];
    if ((header === undefined || header.trim() === '') && cookie) {
      const csrf = req.headers['x-csrf-token'];
      const fetchSite = req.headers['sec-fetch-site'];
      req.auth = await auth.authenticateSession(cookie, {
        method: req.method,
        csrfToken: typeof csrf === 'string' ? csrf : undefined,
        fetchSite: typeof fetchSite === 'string' ? fetchSite : undefined,
        address: req.ip,
      });
      return;
    }
    req.auth = await auth.authenticate(header, req.ip);
    if (req.auth.readOnly && !READ_METHODS.has(req.method)) {
      throw new AppError('INSUFFICIENT_SCOPE', 'This token was granted read access only (scope mcp:read): sign in again granting mcp:write to change anything');
    }
  });
  // Who acts (`core/actor.ts`), for the rest of the request. A callback hook: the rest of the
  // request runs inside `done`, so the store reaches the handler (an async hook's `enterWith`
  // would not outlive the hook's own promise chain).
  app.addHook('onRequest', (req, _reply, done) => {
    runAsActor(req.auth.actor, done);
  });
}

/** The signed-in person of a web-app call; routes that manage people and keys need one. */
export function requireSession(req: FastifyRequest) {
  if (!req.auth.session) {
    throw new AppError('FORBIDDEN', 'This route is for the signed-in web app (session cookie); API keys and OAuth tokens cannot manage people, keys or approvals');
  }
  return req.auth.session;
}

import type { FastifyInstance } from 'fastify';
import type { AuthContext, AuthService } from '../modules/auth/auth.service.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the auth hook on every route of the authenticated scope. */
    auth: AuthContext;
  }
}

/** Authenticates every request of the scope it is installed in (API.md §2). */
export function installAuth(app: FastifyInstance, auth: AuthService) {
  app.decorateRequest('auth', null as unknown as AuthContext);
  app.addHook('onRequest', async (req) => {
    req.auth = await auth.authenticate(req.headers.authorization, req.ip);
  });
}

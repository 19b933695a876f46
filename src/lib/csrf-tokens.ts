import Tokens from '@fastify/csrf';

// The package's default export is a factory that also works with `new`; typed as a call.
const csrf = Tokens();

/**
 * CSRF tokens for a secret (a session's, or the pre-session cookie's on sign-in forms). Here in lib/
 * because both the HTTP edge (`http/session.ts`) and the services (sessions, auth) use it.
 */
export const csrfTokens = {
  newSecret: () => csrf.secretSync(),
  create: (secret: string) => csrf.create(secret),
  verify: (secret: string, token: string) => {
    try {
      return csrf.verify(secret, token);
    } catch {
      return false;
    }
  },
};

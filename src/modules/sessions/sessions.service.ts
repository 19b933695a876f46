import type { Db, Tx } from '../../db/client.js';
import type { Clock } from '../../lib/clock.js';
import { csrfTokens } from '../../lib/csrf-tokens.js';
import { hashCredential, newOpaqueToken } from '../../lib/tokens.js';
import type { SessionsRepository } from './sessions.repository.js';

/** A signed-in browser, as routes see it. */
export interface SessionContext {
  id: string;
  userId: string;
  email: string;
  name: string;
  /** the organisation the person is working in (null: none chosen, or it was deleted) */
  organizationId: string | null;
  /** signs this session's CSRF tokens */
  csrfSecret: string;
}

export interface SessionOptions {
  /** a session unused for this long ends */
  idleMs: number;
  /** a session ends this long after sign-in, used or not */
  maxAgeMs: number;
}

/**
 * The one session module (issue 15): the account pages use it now, and the calendar app will
 * sign in with the same sessions. A session is a database row keyed by the SHA-256 of a random
 * cookie token; a new one is made at each sign-in (so a token planted before sign-in is
 * worthless) and when the password changes.
 */
export function createSessionsService(deps: { sessions: SessionsRepository; clock: Clock; options: SessionOptions }) {
  const { sessions, clock, options } = deps;
  /** how stale `last_seen_at` may get before a request moves the idle expiry (one write a minute, not one a request) */
  const touchEveryMs = Math.min(60_000, options.idleMs / 10);

  return {
    /** Starts a session: answers the cookie token (shown to the browser only). */
    async start(input: { userId: string; organizationId: string | null; userAgent?: string; ip?: string }, q?: Db | Tx) {
      const now = clock.now();
      const token = newOpaqueToken();
      const row = await sessions.insertSession(
        {
        tokenHash: hashCredential(token),
        userId: input.userId,
        organizationId: input.organizationId,
        csrfSecret: csrfTokens.newSecret(),
        userAgent: input.userAgent?.slice(0, 300) ?? null,
        ip: input.ip ?? null,
        expiresAt: new Date(now + options.idleMs),
        absoluteExpiresAt: new Date(now + options.maxAgeMs),
        },
        q,
      );
      return { token, sessionId: row.id };
    },

    /** The live session a cookie token names, or undefined. Moves its idle expiry forward. */
    async resolve(token: string | undefined): Promise<SessionContext | undefined> {
      if (!token || token.length > 200) return undefined;
      const now = clock.now();
      const found = await sessions.findLiveSession(hashCredential(token), new Date(now));
      if (!found) return undefined;
      const { session, user } = found;
      if (now - session.lastSeenAt.getTime() >= touchEveryMs) {
        const expiresAt = Math.min(now + options.idleMs, session.absoluteExpiresAt.getTime());
        await sessions.touchSession(session.id, new Date(now), new Date(expiresAt));
      }
      return {
        id: session.id,
        userId: user.id,
        email: user.email,
        name: user.name,
        organizationId: session.organizationId,
        csrfSecret: session.csrfSecret,
      };
    },

    async end(sessionId: string) {
      await sessions.deleteSession(sessionId);
    },

    /** Ends every session of the user but `exceptId`; answers how many ended. */
    endAllOf(userId: string, exceptId?: string, q?: Db | Tx) {
      return sessions.deleteUserSessions(userId, exceptId, q);
    },

    async switchOrganization(sessionId: string, organizationId: string) {
      await sessions.setSessionOrganization(sessionId, organizationId);
    },

    sweep: () => sessions.sweep(new Date(clock.now())),
  };
}

export type SessionsService = ReturnType<typeof createSessionsService>;

import { and, eq, gt, lt, ne, or } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.js';
import { sessions, users } from '../../db/schema/index.js';

export type SessionRow = typeof sessions.$inferSelect;

export function createSessionsRepository(db: Db) {
  return {
    async insertSession(
      values: { tokenHash: string; userId: string; organizationId: string | null; csrfSecret: string; userAgent: string | null; ip: string | null; expiresAt: Date; absoluteExpiresAt: Date },
      q: Db | Tx = db,
    ) {
      const [row] = await q.insert(sessions).values(values).returning();
      return row!;
    },

    /** A live session and its user. */
    async findLiveSession(tokenHash: string, now: Date) {
      const [row] = await db
        .select({ session: sessions, user: { id: users.id, email: users.email, name: users.name, passwordChangedAt: users.passwordChangedAt } })
        .from(sessions)
        .innerJoin(users, eq(users.id, sessions.userId))
        .where(and(eq(sessions.tokenHash, tokenHash), gt(sessions.expiresAt, now), gt(sessions.absoluteExpiresAt, now)));
      return row;
    },

    async touchSession(id: string, lastSeenAt: Date, expiresAt: Date) {
      await db.update(sessions).set({ lastSeenAt, expiresAt }).where(eq(sessions.id, id));
    },

    async setSessionOrganization(id: string, organizationId: string | null) {
      await db.update(sessions).set({ organizationId }).where(eq(sessions.id, id));
    },

    async deleteSession(id: string) {
      await db.delete(sessions).where(eq(sessions.id, id));
    },

    /** Ends every session of the user (but `exceptId`, when given). Returns how many ended. */
    async deleteUserSessions(userId: string, exceptId?: string, q: Db | Tx = db) {
      const rows = await q
        .delete(sessions)
        .where(exceptId ? and(eq(sessions.userId, userId), ne(sessions.id, exceptId)) : eq(sessions.userId, userId))
        .returning({ id: sessions.id });
      return rows.length;
    },

    async sweep(now: Date) {
      await db.delete(sessions).where(or(lt(sessions.expiresAt, now), lt(sessions.absoluteExpiresAt, now)));
    },
  };
}

export type SessionsRepository = ReturnType<typeof createSessionsRepository>;

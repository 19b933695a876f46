import { and, asc, count, eq, gt, isNull, lt, ne, notExists, or, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.js';
import {
  invitations,
  memberships,
  organizations,
  passwordResets,
  users,
  type MemberRole,
} from '../../db/schema/index.js';

export type UserRow = typeof users.$inferSelect;
export type InvitationRow = typeof invitations.$inferSelect;

/** Users, memberships, invitations and password resets: SQL only. */
export function createAccountsRepository(db: Db) {
  return {
    transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
      return db.transaction(fn);
    },

    /**
     * Serialises the sign-ups that decide who is first (PostgreSQL: an advisory lock held to the
     * end of the transaction; PGlite runs one transaction at a time anyway).
     */
    async lockSignups(tx: Tx) {
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext('tidings.signup'))`);
    },

    async countUsers(q: Db | Tx = db) {
      const [row] = await q.select({ n: count() }).from(users);
      return row?.n ?? 0;
    },

    async insertUser(q: Db | Tx, values: { email: string; name: string; passwordHash: string; deploymentOwnerSince?: Date }) {
      const [row] = await q.insert(users).values(values).onConflictDoNothing({ target: users.email }).returning();
      return row;
    },

    async findUserByEmail(email: string) {
      const [row] = await db.select().from(users).where(eq(users.email, email));
      return row;
    },

    async findUser(id: string) {
      const [row] = await db.select().from(users).where(eq(users.id, id));
      return row;
    },

    async listUsers() {
      return db.select().from(users).orderBy(asc(users.createdAt));
    },

    async setProfile(userId: string, patch: { name?: string; timezone?: string | null }, at: Date) {
      const [row] = await db.update(users).set({ ...patch, updatedAt: at }).where(eq(users.id, userId)).returning();
      return row;
    },

    async setPassword(q: Db | Tx, userId: string, passwordHash: string, at: Date) {
      await q.update(users).set({ passwordHash, passwordChangedAt: at, updatedAt: at }).where(eq(users.id, userId));
    },

    async insertOrganization(q: Db | Tx, name: string) {
      const [row] = await q.insert(organizations).values({ name }).returning();
      return row!;
    },

    /** Organisations nobody belongs to yet (made by the admin CLI before the first user). */
    async organizationsWithoutMembers(q: Db | Tx) {
      return q
        .select({ id: organizations.id })
        .from(organizations)
        .where(
          and(
            isNull(organizations.deletedAt),
            notExists(q.select({ one: sql`1` }).from(memberships).where(eq(memberships.organizationId, organizations.id))),
          ),
        );
    },

    async insertMembership(q: Db | Tx, values: { organizationId: string; userId: string; role: MemberRole }) {
      const [row] = await q.insert(memberships).values(values).onConflictDoNothing().returning();
      return row;
    },

    /** The user's organisations with their role, oldest membership first. */
    async listMemberships(userId: string) {
      return db
        .select({ organizationId: organizations.id, name: organizations.name, role: memberships.role })
        .from(memberships)
        .innerJoin(organizations, eq(organizations.id, memberships.organizationId))
        .where(and(eq(memberships.userId, userId), isNull(organizations.deletedAt)))
        .orderBy(asc(memberships.createdAt), asc(organizations.name));
    },

    async findMembership(organizationId: string, userId: string, q: Db | Tx = db) {
      const [row] = await q
        .select({ organizationId: organizations.id, name: organizations.name, role: memberships.role })
        .from(memberships)
        .innerJoin(organizations, eq(organizations.id, memberships.organizationId))
        .where(and(eq(memberships.organizationId, organizationId), eq(memberships.userId, userId), isNull(organizations.deletedAt)));
      return row;
    },

    async listMembers(organizationId: string, q: Db | Tx = db) {
      return q
        .select({ userId: users.id, email: users.email, name: users.name, role: memberships.role, since: memberships.createdAt })
        .from(memberships)
        .innerJoin(users, eq(users.id, memberships.userId))
        .where(eq(memberships.organizationId, organizationId))
        .orderBy(asc(memberships.createdAt), asc(users.email));
    },

    async countOwners(q: Db | Tx, organizationId: string) {
      const [row] = await q
        .select({ n: count() })
        .from(memberships)
        .where(and(eq(memberships.organizationId, organizationId), eq(memberships.role, 'owner')));
      return row?.n ?? 0;
    },

    /** Locks the organisation's memberships for a change that must keep an owner. */
    async lockMemberships(tx: Tx, organizationId: string) {
      await tx.select({ userId: memberships.userId }).from(memberships).where(eq(memberships.organizationId, organizationId)).for('update');
    },

    async setRole(q: Db | Tx, organizationId: string, userId: string, role: MemberRole) {
      const [row] = await q
        .update(memberships)
        .set({ role })
        .where(and(eq(memberships.organizationId, organizationId), eq(memberships.userId, userId)))
        .returning();
      return row;
    },

    async deleteMembership(q: Db | Tx, organizationId: string, userId: string) {
      const [row] = await q
        .delete(memberships)
        .where(and(eq(memberships.organizationId, organizationId), eq(memberships.userId, userId)))
        .returning();
      return row;
    },

    async insertInvitation(values: { organizationId: string; tokenHash: string; email: string | null; role: MemberRole; invitedBy: string; expiresAt: Date }) {
      const [row] = await db.insert(invitations).values(values).returning();
      return row!;
    },

    /** An invitation that can still be accepted, with its organisation's name. */
    async findOpenInvitation(tokenHash: string, now: Date) {
      const [row] = await db
        .select({ invitation: invitations, organizationName: organizations.name })
        .from(invitations)
        .innerJoin(organizations, eq(organizations.id, invitations.organizationId))
        .where(
          and(
            eq(invitations.tokenHash, tokenHash),
            isNull(invitations.acceptedAt),
            isNull(invitations.revokedAt),
            gt(invitations.expiresAt, now),
            isNull(organizations.deletedAt),
          ),
        );
      return row;
    },

    async listOpenInvitations(organizationId: string, now: Date) {
      return db
        .select()
        .from(invitations)
        .where(
          and(eq(invitations.organizationId, organizationId), isNull(invitations.acceptedAt), isNull(invitations.revokedAt), gt(invitations.expiresAt, now)),
        )
        .orderBy(asc(invitations.createdAt));
    },

    /** Marks an invitation used; false when someone else used or revoked it first. */
    async acceptInvitation(q: Db | Tx, id: string, userId: string, at: Date) {
      const rows = await q
        .update(invitations)
        .set({ acceptedAt: at, acceptedBy: userId })
        .where(and(eq(invitations.id, id), isNull(invitations.acceptedAt), isNull(invitations.revokedAt), gt(invitations.expiresAt, at)))
        .returning({ id: invitations.id });
      return rows.length === 1;
    },

    async revokeInvitation(organizationId: string, id: string, at: Date) {
      const [row] = await db
        .update(invitations)
        .set({ revokedAt: at })
        .where(and(eq(invitations.id, id), eq(invitations.organizationId, organizationId), isNull(invitations.acceptedAt), isNull(invitations.revokedAt)))
        .returning();
      return row;
    },

    async insertPasswordReset(values: { userId: string; tokenHash: string; expiresAt: Date }) {
      await db.insert(passwordResets).values(values);
    },

    async findOpenPasswordReset(tokenHash: string, now: Date) {
      const [row] = await db
        .select({ reset: passwordResets, email: users.email })
        .from(passwordResets)
        .innerJoin(users, eq(users.id, passwordResets.userId))
        .where(and(eq(passwordResets.tokenHash, tokenHash), isNull(passwordResets.usedAt), gt(passwordResets.expiresAt, now)));
      return row;
    },

    /** Uses a reset link (false when it was used meanwhile) and voids the user's other open ones. */
    async usePasswordReset(q: Db | Tx, id: string, userId: string, at: Date) {
      const used = await q
        .update(passwordResets)
        .set({ usedAt: at })
        .where(and(eq(passwordResets.id, id), isNull(passwordResets.usedAt), gt(passwordResets.expiresAt, at)))
        .returning({ id: passwordResets.id });
      if (used.length !== 1) return false;
      await q
        .update(passwordResets)
        .set({ usedAt: at })
        .where(and(eq(passwordResets.userId, userId), isNull(passwordResets.usedAt), ne(passwordResets.id, id)));
      return true;
    },

    /** Housekeeping: links that can no longer be used. */
    async sweep(now: Date) {
      const dayAgo = new Date(now.getTime() - 86_400_000);
      await db.delete(passwordResets).where(or(lt(passwordResets.expiresAt, dayAgo), lt(passwordResets.usedAt, dayAgo)));
    },
  };
}

export type AccountsRepository = ReturnType<typeof createAccountsRepository>;

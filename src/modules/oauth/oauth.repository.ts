import { and, asc, desc, eq, inArray, isNull, lt, or, sql, type SQL } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.js';
import {
  deviceAuthorizations,
  oauthAccessTokens,
  oauthClients,
  oauthCodes,
  oauthGrants,
  oauthRefreshTokens,
  organizations,
  users,
} from '../../db/schema/index.js';

export type ClientRow = typeof oauthClients.$inferSelect;
export type GrantRow = typeof oauthGrants.$inferSelect;
export type CodeRow = typeof oauthCodes.$inferSelect;
export type DeviceRow = typeof deviceAuthorizations.$inferSelect;

/** The OAuth server's rows: clients, grants, codes, tokens, device authorisations. SQL only. */
export function createOauthRepository(db: Db) {
  /** Revokes the live grants matching `where`, and every token issued from them. Answers the access tokens revoked (and how many grants). */
  async function revokeGrantsWhere(q: Db | Tx, where: SQL | undefined, at: Date, reason: string) {
    const grants = await q
      .update(oauthGrants)
      .set({ revokedAt: at, revokedReason: reason })
      .where(and(where, isNull(oauthGrants.revokedAt)))
      .returning({ id: oauthGrants.id });
    if (grants.length === 0) return Object.assign([] as string[], { grants: 0 });
    const ids = grants.map((g) => g.id);
    await q.update(oauthRefreshTokens).set({ revokedAt: at }).where(and(inArray(oauthRefreshTokens.grantId, ids), isNull(oauthRefreshTokens.revokedAt)));
    const tokens = await q
      .update(oauthAccessTokens)
      .set({ revokedAt: at })
      .where(and(inArray(oauthAccessTokens.grantId, ids), isNull(oauthAccessTokens.revokedAt)))
      .returning({ id: oauthAccessTokens.id });
    return Object.assign(
      tokens.map((t) => t.id),
      { grants: grants.length },
    );
  }

  return {
    transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
      return db.transaction(fn);
    },

    async insertClient(values: typeof oauthClients.$inferInsert) {
      const [row] = await db.insert(oauthClients).values(values).returning();
      return row!;
    },

    async findClientByClientId(clientId: string) {
      const [row] = await db
        .select()
        .from(oauthClients)
        .where(and(eq(oauthClients.clientId, clientId), isNull(oauthClients.deletedAt)));
      return row;
    },

    async findClientById(id: string, q: Db | Tx = db) {
      const [row] = await q.select().from(oauthClients).where(eq(oauthClients.id, id));
      return row;
    },

    async findOrganizationName(id: string) {
      const [row] = await db.select({ name: organizations.name }).from(organizations).where(eq(organizations.id, id));
      return row?.name;
    },

    async listOrganizationClients(organizationId: string) {
      return db
        .select()
        .from(oauthClients)
        .where(and(eq(oauthClients.organizationId, organizationId), eq(oauthClients.origin, 'organization'), isNull(oauthClients.deletedAt)))
        .orderBy(asc(oauthClients.createdAt));
    },

    async setClientSecret(organizationId: string, id: string, secretHash: string, secretPrefix: string) {
      const [row] = await db
        .update(oauthClients)
        .set({ secretHash, secretPrefix })
        .where(and(eq(oauthClients.id, id), eq(oauthClients.organizationId, organizationId), eq(oauthClients.kind, 'confidential'), isNull(oauthClients.deletedAt)))
        .returning();
      return row;
    },

    /** Deletes an organisation's app and revokes everything issued to it, in one transaction. */
    async deleteClient(organizationId: string, id: string, at: Date) {
      return db.transaction(async (tx) => {
        const [row] = await tx
          .update(oauthClients)
          .set({ deletedAt: at })
          .where(and(eq(oauthClients.id, id), eq(oauthClients.organizationId, organizationId), isNull(oauthClients.deletedAt)))
          .returning();
        if (!row) return undefined;
        const tokenIds = await revokeGrantsWhere(tx, eq(oauthGrants.clientId, id), at, 'app deleted');
        return { client: row, tokenIds };
      });
    },

    async insertCode(values: typeof oauthCodes.$inferInsert) {
      await db.insert(oauthCodes).values(values);
    },

    /** Locks the code row for its exchange (two exchanges of one code: the second sees it used). */
    async lockCode(tx: Tx, codeHash: string) {
      const [row] = await tx.select().from(oauthCodes).where(eq(oauthCodes.codeHash, codeHash)).for('update');
      return row;
    },

    async markCodeUsed(tx: Tx, id: string, grantId: string, at: Date) {
      await tx.update(oauthCodes).set({ usedAt: at, grantId }).where(eq(oauthCodes.id, id));
    },

    async findGrantForUpdate(tx: Tx, id: string) {
      const [row] = await tx.select().from(oauthGrants).where(eq(oauthGrants.id, id)).for('update');
      return row;
    },

    async insertGrant(tx: Tx, values: { clientId: string; organizationId: string; userId: string; scope: string }) {
      const [row] = await tx.insert(oauthGrants).values(values).returning();
      return row!;
    },

    async touchClientApproved(q: Db | Tx, id: string, at: Date) {
      await q.update(oauthClients).set({ lastApprovedAt: at }).where(eq(oauthClients.id, id));
    },

    async insertAccessToken(tx: Tx, values: typeof oauthAccessTokens.$inferInsert) {
      const [row] = await tx.insert(oauthAccessTokens).values(values).returning();
      return row!;
    },

    async insertRefreshToken(tx: Tx, values: { tokenHash: string; grantId: string; accessTokenId: string }) {
      await tx.insert(oauthRefreshTokens).values(values);
    },

    /** A refresh token with its grant and client, locked for rotation. */
    async lockRefreshToken(tx: Tx, tokenHash: string) {
      const [row] = await tx
        .select({ refresh: oauthRefreshTokens, grant: oauthGrants, client: oauthClients })
        .from(oauthRefreshTokens)
        .innerJoin(oauthGrants, eq(oauthGrants.id, oauthRefreshTokens.grantId))
        .innerJoin(oauthClients, eq(oauthClients.id, oauthGrants.clientId))
        .where(eq(oauthRefreshTokens.tokenHash, tokenHash))
        .for('update', { of: oauthRefreshTokens });
      return row;
    },

    async markRefreshUsed(tx: Tx, id: string, at: Date) {
      await tx.update(oauthRefreshTokens).set({ usedAt: at }).where(eq(oauthRefreshTokens.id, id));
    },

    async revokeAccessToken(id: string, at: Date, q: Db | Tx = db) {
      const rows = await q
        .update(oauthAccessTokens)
        .set({ revokedAt: at })
        .where(and(eq(oauthAccessTokens.id, id), isNull(oauthAccessTokens.revokedAt)))
        .returning({ id: oauthAccessTokens.id });
      return rows.length > 0;
    },

    /** An access token by hash with its grant's client (for revocation by the client that holds it). */
    async findAccessToken(tokenHash: string) {
      const [row] = await db
        .select({ token: oauthAccessTokens, clientId: oauthGrants.clientId })
        .from(oauthAccessTokens)
        .leftJoin(oauthGrants, eq(oauthGrants.id, oauthAccessTokens.grantId))
        .where(eq(oauthAccessTokens.tokenHash, tokenHash));
      return row;
    },

    async findRefreshToken(tokenHash: string) {
      const [row] = await db
        .select({ refresh: oauthRefreshTokens, clientId: oauthGrants.clientId })
        .from(oauthRefreshTokens)
        .innerJoin(oauthGrants, eq(oauthGrants.id, oauthRefreshTokens.grantId))
        .where(eq(oauthRefreshTokens.tokenHash, tokenHash));
      return row;
    },

    revokeGrant: (q: Db | Tx, id: string, at: Date, reason: string) => revokeGrantsWhere(q, eq(oauthGrants.id, id), at, reason),

    /** A person's grants in an organisation (they left it, or were removed). */
    revokeGrantsOf: (q: Db | Tx, filter: { organizationId: string; userId: string }, at: Date, reason: string) =>
      revokeGrantsWhere(q, and(eq(oauthGrants.organizationId, filter.organizationId), eq(oauthGrants.userId, filter.userId)), at, reason),

    /** Revokes one of the person's own grants (the approved-apps page); undefined when they have no such live grant. */
    async revokeUserGrant(userId: string, id: string, at: Date) {
      const revoked = await db.transaction((tx) => revokeGrantsWhere(tx, and(eq(oauthGrants.id, id), eq(oauthGrants.userId, userId)), at, 'revoked by the user'));
      return revoked.grants === 0 ? undefined : [...revoked];
    },

    /** The live grants a person made, with the app and organisation names, newest first. */
    async listUserGrants(userId: string) {
      return db
        .select({
          id: oauthGrants.id,
          scope: oauthGrants.scope,
          createdAt: oauthGrants.createdAt,
          clientName: oauthClients.name,
          clientOrigin: oauthClients.origin,
          clientUri: oauthClients.clientUri,
          logoUrl: oauthClients.logoUrl,
          organizationId: organizations.id,
          organizationName: organizations.name,
          lastUsedAt: sql<Date | null>`(select max(${oauthAccessTokens.lastUsedAt}) from ${oauthAccessTokens} where ${oauthAccessTokens.grantId} = ${oauthGrants.id})`.mapWith(
            (v: unknown) => (v === null || v === undefined ? null : new Date(v as string)),
          ),
        })
        .from(oauthGrants)
        .innerJoin(oauthClients, eq(oauthClients.id, oauthGrants.clientId))
        .innerJoin(organizations, eq(organizations.id, oauthGrants.organizationId))
        .where(and(eq(oauthGrants.userId, userId), isNull(oauthGrants.revokedAt), isNull(organizations.deletedAt)))
        .orderBy(desc(oauthGrants.createdAt));
    },

    async insertDevice(values: typeof deviceAuthorizations.$inferInsert) {
      const [row] = await db.insert(deviceAuthorizations).values(values).onConflictDoNothing().returning();
      return row;
    },

    async findDeviceByUserCode(userCode: string) {
      const [row] = await db.select().from(deviceAuthorizations).where(eq(deviceAuthorizations.userCode, userCode));
      return row;
    },

    async lockDevice(tx: Tx, where: { deviceCodeHash: string } | { id: string }) {
      const [row] = await tx
        .select()
        .from(deviceAuthorizations)
        .where('id' in where ? eq(deviceAuthorizations.id, where.id) : eq(deviceAuthorizations.deviceCodeHash, where.deviceCodeHash))
        .for('update');
      return row;
    },

    async updateDevice(tx: Tx, id: string, patch: Partial<typeof deviceAuthorizations.$inferInsert>) {
      await tx.update(deviceAuthorizations).set(patch).where(eq(deviceAuthorizations.id, id));
    },

    /** The email of the person behind a grant (the consent and device pages name who approved). */
    async findUserEmail(id: string) {
      const [row] = await db.select({ email: users.email }).from(users).where(eq(users.id, id));
      return row?.email;
    },

    /**
     * Housekeeping: expired codes and device authorisations, and dynamically registered clients
     * nobody approved within 30 days of registering.
     */
    async sweep(now: Date) {
      const hourAgo = new Date(now.getTime() - 3_600_000);
      await db.delete(oauthCodes).where(lt(oauthCodes.expiresAt, hourAgo));
      await db.delete(deviceAuthorizations).where(lt(deviceAuthorizations.expiresAt, hourAgo));
      await db
        .delete(oauthClients)
        .where(
          and(
            eq(oauthClients.origin, 'dynamic'),
            isNull(oauthClients.lastApprovedAt),
            lt(oauthClients.createdAt, new Date(now.getTime() - 30 * 86_400_000)),
          ),
        );
      await db.delete(oauthRefreshTokens).where(or(lt(oauthRefreshTokens.revokedAt, new Date(now.getTime() - 30 * 86_400_000))));
    },
  };
}

export type OauthRepository = ReturnType<typeof createOauthRepository>;

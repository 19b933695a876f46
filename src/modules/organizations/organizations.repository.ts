import { and, asc, eq, isNull } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { apiKeys, organizations } from '../../db/schema/index.js';

export function createOrganizationsRepository(db: Db) {
  return {
    async insertOrganization(name: string) {
      const [row] = await db.insert(organizations).values({ name }).returning();
      return row!;
    },

    async findOrganization(id: string) {
      const [row] = await db
        .select()
        .from(organizations)
        .where(and(eq(organizations.id, id), isNull(organizations.deletedAt)));
      return row;
    },

    async listOrganizations() {
      return db.select().from(organizations).where(isNull(organizations.deletedAt)).orderBy(asc(organizations.createdAt));
    },

    async setPlan(organizationId: string, planName: string, at: Date) {
      const [row] = await db
        .update(organizations)
        .set({ planName, updatedAt: at })
        .where(and(eq(organizations.id, organizationId), isNull(organizations.deletedAt)))
        .returning();
      return row;
    },

    async insertApiKey(values: { organizationId: string; name: string; prefix: string; keyHash: string; sandbox?: boolean }) {
      const [row] = await db.insert(apiKeys).values(values).returning();
      return row!;
    },

    async listApiKeys(organizationId: string) {
      return db.select().from(apiKeys).where(eq(apiKeys.organizationId, organizationId)).orderBy(asc(apiKeys.createdAt));
    },

    async revokeApiKey(id: string, at: Date, organizationId?: string) {
      const [row] = await db
        .update(apiKeys)
        .set({ revokedAt: at })
        .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt), organizationId ? eq(apiKeys.organizationId, organizationId) : undefined))
        .returning();
      return row;
    },

    async findApiKey(id: string) {
      const [row] = await db.select().from(apiKeys).where(eq(apiKeys.id, id));
      return row;
    },
  };
}

export type OrganizationsRepository = ReturnType<typeof createOrganizationsRepository>;

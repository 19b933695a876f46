import { and, asc, eq, isNull } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { customers, integrations } from '../../db/schema/index.js';

export function createGroupsRepository(db: Db) {
  const owned = (organizationId: string, id: string) =>
    and(eq(customers.id, id), eq(customers.organizationId, organizationId), isNull(customers.deletedAt));
  return {
    async listGroups(organizationId: string) {
      return db
        .select({ id: customers.id, name: customers.name })
        .from(customers)
        .where(and(eq(customers.organizationId, organizationId), isNull(customers.deletedAt)))
        .orderBy(asc(customers.name), asc(customers.id));
    },
    async groupExists(organizationId: string, id: string) {
      const [row] = await db.select({ id: customers.id }).from(customers).where(owned(organizationId, id));
      return row !== undefined;
    },
    async insertGroup(organizationId: string, name: string) {
      const [row] = await db.insert(customers).values({ organizationId, name }).returning({ id: customers.id, name: customers.name });
      return row!;
    },
    async renameGroup(organizationId: string, id: string, name: string, at: Date) {
      const [row] = await db
        .update(customers)
        .set({ name, updatedAt: at })
        .where(owned(organizationId, id))
        .returning({ id: customers.id, name: customers.name });
      return row;
    },
    /** Soft-deletes the group and takes its channels out of it, atomically. */
    async deleteGroup(organizationId: string, id: string, at: Date) {
      return db.transaction(async (tx) => {
        const [row] = await tx
          .update(customers)
          .set({ deletedAt: at, updatedAt: at })
          .where(owned(organizationId, id))
          .returning({ id: customers.id, name: customers.name });
        if (row) {
          await tx
            .update(integrations)
            .set({ customerId: null, updatedAt: at })
            .where(and(eq(integrations.organizationId, organizationId), eq(integrations.customerId, id)));
        }
        return row;
      });
    },
  };
}

export type GroupsRepository = ReturnType<typeof createGroupsRepository>;

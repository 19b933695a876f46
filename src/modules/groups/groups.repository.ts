import { and, asc, eq, isNull } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { customers } from '../../db/schema/index.js';

export function createGroupsRepository(db: Db) {
  return {
    async listGroups(organizationId: string) {
      return db
        .select({ id: customers.id, name: customers.name })
        .from(customers)
        .where(and(eq(customers.organizationId, organizationId), isNull(customers.deletedAt)))
        .orderBy(asc(customers.name), asc(customers.id));
    },
    async insertGroup(organizationId: string, name: string) {
      const [row] = await db.insert(customers).values({ organizationId, name }).returning();
      return row!;
    },
  };
}

export type GroupsRepository = ReturnType<typeof createGroupsRepository>;

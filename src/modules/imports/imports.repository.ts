import { and, eq, isNull } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.js';
import { imports, integrations } from '../../db/schema/index.js';
import { isUuid } from '../../lib/ids.js';

export type ImportRow = typeof imports.$inferSelect;
export type NewImportRow = typeof imports.$inferInsert;

export function createImportsRepository(db: Db) {
  return {
    transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
      return db.transaction(fn);
    },

    /** The organisation's live channels (read once per file: rows name them by id, account id or name). */
    async listChannels(organizationId: string) {
      return db
        .select({ id: integrations.id, internalId: integrations.internalId, name: integrations.name, identifier: integrations.identifier })
        .from(integrations)
        .where(and(eq(integrations.organizationId, organizationId), isNull(integrations.deletedAt)));
    },

    async insert(row: NewImportRow, q: Tx | Db = db) {
      const [r] = await q.insert(imports).values(row).returning();
      return r!;
    },

    async update(id: string, values: Partial<NewImportRow>, q: Tx | Db = db) {
      await q.update(imports).set(values).where(eq(imports.id, id));
    },

    async find(organizationId: string, id: string) {
      if (!isUuid(id)) return undefined;
      const [r] = await db.select().from(imports).where(and(eq(imports.organizationId, organizationId), eq(imports.id, id)));
      return r;
    },
  };
}

export type ImportsRepository = ReturnType<typeof createImportsRepository>;

import { and, eq, inArray, isNull, lt, notInArray } from 'drizzle-orm';
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

    /** Locks a background import's row for its run and answers its status (a second run waits, then sees it completed). */
    async lockForRun(id: string, tx: Tx) {
      const [r] = await tx.select({ status: imports.status }).from(imports).where(eq(imports.id, id)).for('update');
      return r?.status;
    },

    /** Marks a running background import alive (its heartbeat; a finished one is left alone). */
    async touchRunning(id: string, at: Date) {
      await db
        .update(imports)
        .set({ updatedAt: at })
        .where(and(eq(imports.id, id), inArray(imports.status, ['pending', 'running'])));
    },

    /** Background imports not finished whose heartbeat is older than `before` (their process is gone), but those in `skip`. */
    async findStale(before: Date, skip: string[]) {
      return db
        .select({ id: imports.id, organizationId: imports.organizationId, updatedAt: imports.updatedAt })
        .from(imports)
        .where(and(inArray(imports.status, ['pending', 'running']), lt(imports.updatedAt, before), skip.length > 0 ? notInArray(imports.id, skip) : undefined))
        .orderBy(imports.createdAt)
        .limit(20);
    },

    /** Takes over a stale import: only one process wins (the row still has the heartbeat it was found with). */
    async claimStale(id: string, seenUpdatedAt: Date, at: Date) {
      const [r] = await db
        .update(imports)
        .set({ status: 'running', updatedAt: at })
        .where(and(eq(imports.id, id), eq(imports.updatedAt, seenUpdatedAt), inArray(imports.status, ['pending', 'running'])))
        .returning();
      return r;
    },

    async find(organizationId: string, id: string) {
      if (!isUuid(id)) return undefined;
      const [r] = await db.select().from(imports).where(and(eq(imports.organizationId, organizationId), eq(imports.id, id)));
      return r;
    },
  };
}

export type ImportsRepository = ReturnType<typeof createImportsRepository>;

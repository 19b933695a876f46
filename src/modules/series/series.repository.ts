import { and, asc, desc, eq, gte, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.js';
import { integrations, posts, postSeries } from '../../db/schema/index.js';
import { isUuid } from '../../lib/ids.js';

export type SeriesRow = typeof postSeries.$inferSelect;
export type NewSeriesRow = typeof postSeries.$inferInsert;

export function createSeriesRepository(db: Db) {
  return {
    transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
      return db.transaction(fn);
    },

    async insert(tx: Tx, row: NewSeriesRow) {
      const [r] = await tx.insert(postSeries).values(row).returning();
      return r!;
    },

    async update(tx: Tx, id: string, patch: Partial<NewSeriesRow>) {
      const [r] = await tx.update(postSeries).set(patch).where(eq(postSeries.id, id)).returning();
      return r!;
    },

    /** The live series, locked for the transaction: whoever holds it is the only one creating its occurrences. */
    async lock(tx: Tx, id: string, organizationId?: string) {
      if (!isUuid(id)) return undefined;
      const [r] = await tx
        .select()
        .from(postSeries)
        .where(and(eq(postSeries.id, id), isNull(postSeries.deletedAt), organizationId ? eq(postSeries.organizationId, organizationId) : undefined))
        .for('update');
      return r;
    },

    async find(organizationId: string, id: string) {
      if (!isUuid(id)) return undefined;
      const [r] = await db
        .select()
        .from(postSeries)
        .where(and(eq(postSeries.id, id), eq(postSeries.organizationId, organizationId), isNull(postSeries.deletedAt)));
      return r;
    },

    async list(organizationId: string, limit: number) {
      return db
        .select()
        .from(postSeries)
        .where(and(eq(postSeries.organizationId, organizationId), isNull(postSeries.deletedAt)))
        .orderBy(desc(postSeries.createdAt), desc(postSeries.id))
        .limit(limit);
    },

    /** Live, healthy, unfinished series whose occurrences stop before `until` (the extender's work). */
    async dueForExtension(until: Date, limit: number) {
      const rows = await db
        .select({ id: postSeries.id })
        .from(postSeries)
        .where(
          and(
            isNull(postSeries.deletedAt),
            isNull(postSeries.completedAt),
            isNull(postSeries.brokenAt),
            or(isNull(postSeries.materializedThrough), lt(postSeries.materializedThrough, until)),
          ),
        )
        .orderBy(asc(postSeries.materializedThrough))
        .limit(limit);
      return rows.map((r) => r.id);
    },

    /** Root posts (live) of a series, by occurrence then channel. */
    async occurrencePosts(seriesId: string, q: Tx | Db = db, opts: { fromIndex?: number; from?: Date } = {}) {
      return q
        .select({
          id: posts.id,
          integrationId: posts.integrationId,
          group: posts.group,
          state: posts.state,
          publishDate: posts.publishDate,
          seriesIndex: posts.seriesIndex,
          attemptState: posts.attemptState,
        })
        .from(posts)
        .where(
          and(
            eq(posts.seriesId, seriesId),
            isNull(posts.parentPostId),
            isNull(posts.deletedAt),
            opts.fromIndex !== undefined ? gte(posts.seriesIndex, opts.fromIndex) : undefined,
            opts.from ? gte(posts.publishDate, opts.from) : undefined,
          ),
        )
        .orderBy(asc(posts.seriesIndex), asc(posts.publishDate), asc(posts.integrationId));
    },

    /** The root post `id` of the organisation with its series link (not deleted). */
    async findPost(organizationId: string, id: string) {
      if (!isUuid(id)) return undefined;
      const [r] = await db
        .select({ id: posts.id, seriesId: posts.seriesId, seriesIndex: posts.seriesIndex, parentPostId: posts.parentPostId, publishDate: posts.publishDate })
        .from(posts)
        .where(and(eq(posts.id, id), eq(posts.organizationId, organizationId), isNull(posts.deletedAt)));
      return r;
    },

    /** Every live row (roots and thread items) of the series' occurrences from `fromIndex` on, locked. */
    async lockOccurrenceRows(tx: Tx, seriesId: string, fromIndex: number) {
      return tx
        .select()
        .from(posts)
        .where(and(eq(posts.seriesId, seriesId), gte(posts.seriesIndex, fromIndex), isNull(posts.deletedAt)))
        .orderBy(asc(posts.seriesIndex), asc(posts.position))
        .for('update');
    },

    async softDeletePosts(tx: Tx, ids: string[], at: Date) {
      if (ids.length === 0) return;
      await tx.update(posts).set({ deletedAt: at, updatedAt: at }).where(inArray(posts.id, ids));
    },

    async findChannel(tx: Tx, id: string) {
      const [r] = await tx.select().from(integrations).where(eq(integrations.id, id));
      return r;
    },

    async countByState(seriesId: string) {
      return db
        .select({ state: posts.state, n: sql<number>`count(*)::int` })
        .from(posts)
        .where(and(eq(posts.seriesId, seriesId), isNull(posts.parentPostId), isNull(posts.deletedAt)))
        .groupBy(posts.state);
    },

    /** Live channels among `ids` (a series breaks when one of its channels is gone). */
    async liveChannels(tx: Tx, organizationId: string, ids: string[]) {
      const valid = ids.filter(isUuid);
      if (valid.length === 0) return [];
      return tx
        .select({ id: integrations.id })
        .from(integrations)
        .where(and(eq(integrations.organizationId, organizationId), inArray(integrations.id, valid), isNull(integrations.deletedAt)));
    },
  };
}

export type SeriesRepository = ReturnType<typeof createSeriesRepository>;

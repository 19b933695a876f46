import { and, asc, desc, eq, inArray, isNull, lte, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.js';
import { feedItems, feeds, integrations } from '../../db/schema/index.js';

export type FeedRow = typeof feeds.$inferSelect;
export type NewFeedRow = typeof feeds.$inferInsert;
export type FeedItemRow = typeof feedItems.$inferSelect;
export type NewFeedItemRow = typeof feedItems.$inferInsert;
export type FeedPatch = Partial<Omit<NewFeedRow, 'id' | 'organizationId' | 'createdAt'>>;

/** The SQL of feeds (src/modules/feeds). */
export function createFeedsRepository(db: Db) {
  const owned = (organizationId: string, id: string) => and(eq(feeds.id, id), eq(feeds.organizationId, organizationId), isNull(feeds.deletedAt));

  return {
    transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
      return db.transaction(fn);
    },

    /** The organisation's live channels among `ids` (what a feed posts on). */
    async findChannels(organizationId: string, ids: string[]) {
      if (ids.length === 0) return [];
      return db
        .select({ id: integrations.id, identifier: integrations.identifier, name: integrations.name, sandbox: integrations.sandbox })
        .from(integrations)
        .where(and(eq(integrations.organizationId, organizationId), inArray(integrations.id, ids), isNull(integrations.deletedAt)));
    },

    async insertFeed(row: NewFeedRow): Promise<FeedRow> {
      const [out] = await db.insert(feeds).values(row).returning();
      return out!;
    },

    async listFeeds(organizationId: string) {
      return db
        .select()
        .from(feeds)
        .where(and(eq(feeds.organizationId, organizationId), isNull(feeds.deletedAt)))
        .orderBy(asc(feeds.createdAt), asc(feeds.id));
    },

    async findFeed(organizationId: string, id: string): Promise<FeedRow | undefined> {
      const [row] = await db.select().from(feeds).where(owned(organizationId, id));
      return row;
    },

    async updateFeed(organizationId: string, id: string, patch: FeedPatch): Promise<FeedRow | undefined> {
      const [row] = await db.update(feeds).set(patch).where(owned(organizationId, id)).returning();
      return row;
    },

    /** A poller's result: written only while the feed is still live. */
    async recordPoll(id: string, patch: FeedPatch): Promise<FeedRow | undefined> {
      const [row] = await db
        .update(feeds)
        .set(patch)
        .where(and(eq(feeds.id, id), isNull(feeds.deletedAt)))
        .returning();
      return row;
    },

    /**
     * Leases due feeds to this poller: their next poll moves to `leaseUntil`, so no other poller
     * takes them meanwhile (SKIP LOCKED: racing pollers each get different feeds).
     */
    async leaseDue(now: Date, leaseUntil: Date, limit: number): Promise<FeedRow[]> {
      const due = db
        .select({ id: feeds.id })
        .from(feeds)
        .where(and(isNull(feeds.deletedAt), lte(feeds.nextPollAt, now)))
        .orderBy(asc(feeds.nextPollAt))
        .limit(limit)
        .for('update', { skipLocked: true });
      return db.update(feeds).set({ nextPollAt: leaseUntil }).where(inArray(feeds.id, due)).returning();
    },

    /** `POST /feeds/{id}/poll`: leases one feed whose poll is not in progress (next poll not in the future beyond its schedule). */
    async leaseOne(organizationId: string, id: string, leaseUntil: Date): Promise<FeedRow | undefined> {
      const [row] = await db.update(feeds).set({ nextPollAt: leaseUntil }).where(owned(organizationId, id)).returning();
      return row;
    },

    db,

    /** Which of `keys` the feed has already recorded, with their outcome. */
    async knownKeys(feedId: string, keys: string[]): Promise<Map<string, string>> {
      if (keys.length === 0) return new Map();
      const rows = await db
        .select({ key: feedItems.key, outcome: feedItems.outcome })
        .from(feedItems)
        .where(and(eq(feedItems.feedId, feedId), inArray(feedItems.key, keys)));
      return new Map(rows.map((r) => [r.key, r.outcome]));
    },

    async findItem(feedId: string, key: string): Promise<FeedItemRow | undefined> {
      const [row] = await db.select().from(feedItems).where(and(eq(feedItems.feedId, feedId), eq(feedItems.key, key)));
      return row;
    },

    /** A pending item's outcome, once: false when another poller settled it first. */
    async settleItem(tx: Tx, id: string, patch: Partial<NewFeedItemRow>): Promise<boolean> {
      const rows = await tx
        .update(feedItems)
        .set(patch)
        .where(and(eq(feedItems.id, id), eq(feedItems.outcome, 'pending')))
        .returning({ id: feedItems.id });
      return rows.length > 0;
    },

    /** Records an item once ever: undefined when it was already recorded (by this or another poller). */
    async insertItem(tx: Tx | Db, row: NewFeedItemRow): Promise<FeedItemRow | undefined> {
      const [out] = await tx.insert(feedItems).values(row).onConflictDoNothing({ target: [feedItems.feedId, feedItems.key] }).returning();
      return out;
    },

    async insertItems(rows: NewFeedItemRow[]): Promise<number> {
      if (rows.length === 0) return 0;
      const out = await db.insert(feedItems).values(rows).onConflictDoNothing({ target: [feedItems.feedId, feedItems.key] }).returning({ id: feedItems.id });
      return out.length;
    },

    async listItems(feedId: string, limit: number): Promise<FeedItemRow[]> {
      return db
        .select()
        .from(feedItems)
        .where(eq(feedItems.feedId, feedId))
        .orderBy(desc(feedItems.firstSeenAt), desc(sql`coalesce(${feedItems.publishedAt}, ${feedItems.firstSeenAt})`), asc(feedItems.key))
        .limit(limit);
    },
  };
}

export type FeedsRepository = ReturnType<typeof createFeedsRepository>;

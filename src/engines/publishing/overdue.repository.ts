import { and, eq, inArray, isNull, lt, lte, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.js';
import { integrations, posts } from '../../db/schema/index.js';

/**
 * The overdue-post watchdog's SQL and the scrape-time count of due posts (issue 29). A post is
 * "due" when it is the first item of a post (`position` 0: thread items follow their root at their
 * own delay), still `QUEUE`, not deleted, and its `publish_date` has passed; both queries use the
 * partial index `posts_due_idx (state, publish_date) WHERE deleted_at IS NULL`.
 */
export function createOverdueRepository(db: Db) {
  const queued = and(eq(posts.state, 'QUEUE'), isNull(posts.deletedAt), eq(posts.position, 0));
  return {
    transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
      return db.transaction(fn);
    },

    /** How many posts are due at `now`, and how many of them were due before `overdueBefore` already (one statement). */
    async countDue(now: Date, overdueBefore: Date): Promise<{ due: number; overdue: number }> {
      const [row] = await db
        .select({
          due: sql<number>`count(*)::int`,
          overdue: sql<number>`(count(*) filter (where ${lt(posts.publishDate, overdueBefore)}))::int`,
        })
        .from(posts)
        .where(and(queued, lte(posts.publishDate, now)));
      return { due: Number(row?.due ?? 0), overdue: Number(row?.overdue ?? 0) };
    },

    /**
     * Marks up to `limit` posts due before `before` (strictly: "more than the threshold ago") and not yet reported for their current date as
     * reported, and answers them (in the caller's transaction, so the report and its mark commit
     * together). Rows another transaction holds (a publish recording its outcome) are skipped, to be
     * looked at again on the next round; several workers never report the same post.
     */
    async claimOverdue(tx: Tx, before: Date, limit: number) {
      const candidates = tx
        .select({ id: posts.id })
        .from(posts)
        .where(and(queued, lt(posts.publishDate, before), sql`${posts.overdueReportedFor} is distinct from ${posts.publishDate}`))
        .orderBy(posts.publishDate)
        .limit(limit)
        .for('update', { skipLocked: true });
      return tx
        .update(posts)
        .set({ overdueReportedFor: sql`${posts.publishDate}` })
        .where(inArray(posts.id, candidates))
        .returning({
          id: posts.id,
          organizationId: posts.organizationId,
          integrationId: posts.integrationId,
          parentPostId: posts.parentPostId,
          group: posts.group,
          position: posts.position,
          publishDate: posts.publishDate,
          attempts: posts.attempts,
          error: posts.error,
        });
    },

    /** The channels of reported posts (for the event payload and the notification's words). */
    async findChannels(tx: Tx, ids: string[]) {
      if (ids.length === 0) return [];
      return tx
        .select({ id: integrations.id, identifier: integrations.identifier, name: integrations.name, sandbox: integrations.sandbox })
        .from(integrations)
        .where(inArray(integrations.id, [...new Set(ids)]));
    },
  };
}

export type OverdueRepository = ReturnType<typeof createOverdueRepository>;

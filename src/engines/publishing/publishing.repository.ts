import { and, eq, gt, inArray, isNotNull, isNull, notInArray, sql } from 'drizzle-orm';
import type { Database, Db, Tx } from '../../db/client.js';
import { integrations, media, posts } from '../../db/schema/index.js';
import { isUuid } from '../../lib/ids.js';

export type PostRow = typeof posts.$inferSelect;

/**
 * The publishing engine's SQL: post rows on and off the queue (versions, jobs, leases), the
 * attempt and outcome recorded on a row, the thread around it, the media it names, and reads of
 * pg-boss's own job table (read only). Methods that take `tx` run in the caller's transaction.
 */
export function createPublishingRepository(database: Database) {
  const db = database.db;
  return {
    transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
      return db.transaction(fn);
    },

    // ── The queue (publish-queue.ts) ──────────────────────────────────────────────────────────

    /** Bumps the row's version for the new job `jobId` due at `dueAt`; answers the new version and the job it had. */
    async bumpForSchedule(tx: Tx, postId: string, dueAt: Date, jobId: string) {
      const [row] = await tx
        .update(posts)
        .set({ version: sql`${posts.version} + 1`, dueAt, leaseOwner: null, publishJobId: jobId })
        .where(eq(posts.id, postId))
        .returning({ version: posts.version, oldJob: sql<string | null>`(select publish_job_id from posts where id = ${postId})` });
      return row;
    },

    /** Wakes publishers in every process listening on `channel` (sent when `tx` commits). */
    async notifyPublishers(tx: Tx, channel: string, dueAt: Date) {
      await tx.execute(sql`select pg_notify(${channel}, ${dueAt.toISOString()})`);
    },

    /** Bumps the row's version with no job; answers the job it had. */
    async bumpForCancel(tx: Tx, postId: string) {
      const [row] = await tx
        .update(posts)
        .set({ version: sql`${posts.version} + 1`, dueAt: null, publishJobId: null, leaseOwner: null })
        .where(eq(posts.id, postId))
        .returning({ oldJob: sql<string | null>`(select publish_job_id from posts where id = ${postId})` });
      return row;
    },

    // ── Leases (dispatcher.ts) ────────────────────────────────────────────────────────────────

    /** The earliest start of a job of `queue` waiting in pg-boss's table, in epoch milliseconds. */
    async findNextDueAt(queue: string): Promise<number | undefined> {
      const { rows } = await database.sql.executeSql(`SELECT extract(epoch from min(start_after)) * 1000 AS at FROM pgboss.job WHERE name = $1 AND state < 'active'`, [queue]);
      const at = rows[0]?.at;
      return at === null || at === undefined ? undefined : Number(at);
    },

    /**
     * Leases the rows of fetched jobs to `workerId`, only where the row's version is the job's (a
     * stale job must not take the lease of a live one); answers each leased row's channel and platform.
     */
    async leaseRows(jobs: { postId: string; version: number }[], workerId: string) {
      const current = sql.join(
        jobs.map((j) => sql`(${j.postId}::uuid, ${j.version}::bigint)`),
        sql`, `,
      );
      return db
        .update(posts)
        .set({ leaseOwner: workerId })
        .from(integrations)
        .where(and(sql`(${posts.id}, ${posts.version}) in (${current})`, eq(integrations.id, posts.integrationId)))
        .returning({ id: posts.id, integrationId: posts.integrationId, identifier: integrations.identifier });
    },

    /** Queued rows leased to a worker not among `live` (any worker when `live` is empty). */
    async findLeasedToOthers(live: string[]) {
      return db
        .select({ id: posts.id, dueAt: posts.dueAt, owner: posts.leaseOwner })
        .from(posts)
        .where(and(eq(posts.state, 'QUEUE'), isNotNull(posts.leaseOwner), live.length ? notInArray(posts.leaseOwner, live) : undefined));
    },

    /** Queued rows leased to `workerId`. */
    async findLeasedTo(workerId: string) {
      return db
        .select({ id: posts.id, dueAt: posts.dueAt, owner: posts.leaseOwner })
        .from(posts)
        .where(and(eq(posts.state, 'QUEUE'), eq(posts.leaseOwner, workerId)));
    },

    /** Ids of queued, unleased rows whose job of `queue` was started (or failed) more than `olderThanSeconds` ago. */
    async findUnleasedStarted(queue: string, olderThanSeconds: number): Promise<string[]> {
      const { rows } = await database.sql.executeSql(
        `SELECT p.id FROM posts p JOIN pgboss.job j ON j.name = $1 AND j.id = p.publish_job_id
        WHERE p.state = 'QUEUE' AND p.lease_owner IS NULL AND j.state IN ('active', 'failed')
          AND j.started_on < now() - make_interval(secs => $2)`,
        [queue, olderThanSeconds],
      );
      return rows.map((r) => String(r.id));
    },

    // ── One post row and its thread (publisher.ts) ────────────────────────────────────────────

    async findPost(id: string, q: Tx | Db = db) {
      const [row] = await q.select().from(posts).where(eq(posts.id, id));
      return row;
    },

    /** The row, locked for the rest of the transaction. */
    async lockPost(tx: Tx, id: string) {
      const [row] = await tx.select().from(posts).where(eq(posts.id, id)).for('update');
      return row;
    },

    /**
     * The row, locked for the rest of the transaction, with its channel's row (one statement: a
     * claim needs both; the channel is not locked).
     */
    async lockPostWithChannel(tx: Tx, id: string) {
      const [found] = await tx.select({ post: posts, integration: integrations }).from(posts).leftJoin(integrations, eq(integrations.id, posts.integrationId)).where(eq(posts.id, id)).for('update', { of: posts });
      return found ? { row: found.post, integration: found.integration ?? undefined } : undefined;
    },

    /** The live thread item just before `position` under `parentPostId`. */
    async findPreviousItem(parentPostId: string, position: number, q: Tx | Db = db) {
      const [row] = await q
        .select()
        .from(posts)
        .where(and(eq(posts.parentPostId, parentPostId), eq(posts.position, position - 1), isNull(posts.deletedAt)))
        .limit(1);
      return row;
    },

    /** Media rows among `ids` (non-UUIDs are simply not found). */
    async findMediaByIds(ids: string[], q: Tx | Db = db) {
      const valid = [...new Set(ids.filter(isUuid))];
      if (valid.length === 0) return [];
      return q.select().from(media).where(inArray(media.id, valid));
    },

    /** Which of these platform ids are already recorded on a post of the channel. */
    async findClaimedReleaseIds(integrationId: string, releaseIds: string[]): Promise<(string | null)[]> {
      if (releaseIds.length === 0) return [];
      const rows = await db
        .select({ id: posts.releaseId })
        .from(posts)
        .where(and(eq(posts.integrationId, integrationId), inArray(posts.releaseId, releaseIds)));
      return rows.map((r) => r.id);
    },

    // ── An attempt and its outcome, each in the caller's transaction ──────────────────────────

    /** The attempt is under way: recorded in its own commit before the request leaves. */
    async markSending(tx: Tx, id: string, workerId: string, at: Date) {
      await tx
        .update(posts)
        .set({ attemptState: 'sending', leaseOwner: workerId, attempts: sql`${posts.attempts} + 1`, lastAttemptAt: at, updatedAt: at })
        .where(eq(posts.id, id));
    },

    /** The platform took the post and processes it asynchronously: `token` is checked later. */
    async markPending(tx: Tx, id: string, token: string, at: Date) {
      await tx.update(posts).set({ attemptState: 'pending', pendingToken: token, pendingProgressAt: at, updatedAt: at }).where(eq(posts.id, id));
    },

    /** A check of a pending publish answered (a new token when the work moved on). */
    async updatePending(tx: Tx, id: string, token: string, progressAt: Date, at: Date) {
      await tx.update(posts).set({ pendingToken: token, pendingProgressAt: progressAt, updatedAt: at }).where(eq(posts.id, id));
    },

    /** The attempt is over without an outcome: the row waits for its next job (`note`: the post's error text). */
    async clearAttempt(tx: Tx, id: string, note: string | null, at: Date) {
      await tx.update(posts).set({ attemptState: null, pendingToken: null, pendingProgressAt: null, error: note, updatedAt: at }).where(eq(posts.id, id));
    },

    async setError(tx: Tx, id: string, error: string | null, at: Date) {
      await tx.update(posts).set({ error, updatedAt: at }).where(eq(posts.id, id));
    },

    /**
     * Marks the row published and answers, in the same statement, the thread's next live item after
     * it (`rootId`, `position`: the row's thread and place), whose job the outcome schedules.
     */
    async markPublished(tx: Tx, row: { id: string; rootId: string; position: number }, release: { id: string; url: string | null; note: string | null }, at: Date) {
      const [done] = await tx
        .update(posts)
        .set({ state: 'PUBLISHED', releaseId: release.id, releaseUrl: release.url, publishedAt: at, error: release.note, attemptState: null, pendingToken: null, pendingProgressAt: null, leaseOwner: null, dueAt: null, publishJobId: null, updatedAt: at })
        .where(eq(posts.id, row.id))
        .returning({
          next: sql<{ id: string; state: string; delay: number } | null>`(select json_build_object('id', n.id, 'state', n.state, 'delay', n.delay) from posts n
            where n.parent_post_id = ${row.rootId} and n.position > ${row.position} and n.deleted_at is null order by n.position limit 1)`,
        });
      return done?.next ?? undefined;
    },

    async markFailed(tx: Tx, id: string, reason: string, at: Date) {
      await tx
        .update(posts)
        .set({ state: 'ERROR', error: reason, attemptState: null, pendingToken: null, pendingProgressAt: null, leaseOwner: null, dueAt: null, publishJobId: null, updatedAt: at })
        .where(eq(posts.id, id));
    },

    /** Ends ERROR (with `reason`) the queued thread items after `position` under `rootId`. */
    async failLaterItems(tx: Tx, rootId: string, position: number, reason: string, at: Date) {
      await tx
        .update(posts)
        .set({ state: 'ERROR', error: reason, updatedAt: at })
        .where(and(eq(posts.parentPostId, rootId), gt(posts.position, position), eq(posts.state, 'QUEUE'), isNull(posts.deletedAt)));
    },
  };
}

export type PublishingRepository = ReturnType<typeof createPublishingRepository>;

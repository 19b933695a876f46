import { and, eq, gt, isNotNull, notInArray, sql } from 'drizzle-orm';
import type { Database, Db, Tx } from '../../db/client.js';
import { videoJobs, workerHeartbeats } from '../../db/schema/index.js';

export type VideoJobRow = typeof videoJobs.$inferSelect;

/**
 * The video engine's SQL: the job rows it claims, reports on, settles and recovers (the leases on
 * them), and the live workers. Methods that take `tx` run in the caller's transaction.
 */
export function createVideoJobsRepository(database: Database) {
  const db = database.db;
  return {
    transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
      return db.transaction(fn);
    },
    async setBossJob(tx: Tx, id: string, bossJobId: string | null) {
      await tx.update(videoJobs).set({ bossJobId }).where(eq(videoJobs.id, id));
    },

    /** A worker takes a queued row: `running`, one more attempt, its lease. Undefined when it is not queued. */
    async claim(id: string, workerId: string, now: Date) {
      const [row] = await db
        .update(videoJobs)
        .set({
          status: 'running',
          attempts: sql`${videoJobs.attempts} + 1`,
          leaseOwner: workerId,
          startedAt: sql`coalesce(${videoJobs.startedAt}, ${now})`,
          progress: 0,
          stage: 'starting',
          updatedAt: now,
        })
        .where(and(eq(videoJobs.id, id), eq(videoJobs.status, 'queued')))
        .returning();
      return row;
    },
    /** Progress of a held row; false when the lease is gone. */
    async progress(id: string, workerId: string, progress: number, stage: string | null, now: Date) {
      const rows = await db
        .update(videoJobs)
        .set({ progress, stage, updatedAt: now })
        .where(and(eq(videoJobs.id, id), eq(videoJobs.status, 'running'), eq(videoJobs.leaseOwner, workerId)))
        .returning({ id: videoJobs.id });
      return rows.length > 0;
    },
    async saveCheckpoint(id: string, workerId: string, checkpoint: Record<string, unknown>, now: Date) {
      const rows = await db
        .update(videoJobs)
        .set({ checkpoint, updatedAt: now })
        .where(and(eq(videoJobs.id, id), eq(videoJobs.status, 'running'), eq(videoJobs.leaseOwner, workerId)))
        .returning({ id: videoJobs.id });
      return rows.length > 0;
    },
    /** Done: in the transaction that inserts the media item; false when the lease is gone. */
    async succeed(tx: Tx, id: string, workerId: string, mediaId: string, now: Date) {
      const rows = await tx
        .update(videoJobs)
        .set({ status: 'succeeded', creditState: 'spent', mediaId, progress: 1, stage: 'done', error: null, leaseOwner: null, finishedAt: now, updatedAt: now })
        .where(and(eq(videoJobs.id, id), eq(videoJobs.status, 'running'), eq(videoJobs.leaseOwner, workerId)))
        .returning({ id: videoJobs.id });
      return rows.length > 0;
    },
    /** Failed for good: the reserved credits are refunded. `workerId` null: whoever held it (recovery). Answers the row, or undefined when not held. */
    async fail(q: Db | Tx, id: string, workerId: string | null, error: string, now: Date) {
      const rows = await q
        .update(videoJobs)
        .set({ status: 'failed', creditState: sql`case when ${videoJobs.creditState} = 'reserved' then 'refunded' else ${videoJobs.creditState} end`, error, leaseOwner: null, stage: 'failed', finishedAt: now, updatedAt: now })
        .where(and(eq(videoJobs.id, id), eq(videoJobs.status, 'running'), workerId === null ? undefined : eq(videoJobs.leaseOwner, workerId)))
        .returning();
      return rows[0];
    },
    /** Back to the queue (a retry, or a shutdown that gives the attempt back); false when the lease is gone. */
    async requeue(tx: Tx, id: string, workerId: string | null, opts: { giveAttemptBack: boolean; error?: string }, now: Date) {
      const rows = await tx
        .update(videoJobs)
        .set({
          status: 'queued',
          leaseOwner: null,
          progress: 0,
          stage: 'queued',
          error: opts.error ?? null,
          attempts: opts.giveAttemptBack ? sql`greatest(${videoJobs.attempts} - 1, 0)` : videoJobs.attempts,
          updatedAt: now,
        })
        .where(and(eq(videoJobs.id, id), eq(videoJobs.status, 'running'), workerId === null ? undefined : eq(videoJobs.leaseOwner, workerId)))
        .returning({ id: videoJobs.id });
      return rows.length > 0;
    },

    /** Running rows whose lease owner is not among the live workers. */
    async orphanedRunning(liveWorkers: string[]) {
      return db
        .select({ id: videoJobs.id, attempts: videoJobs.attempts, maxAttempts: videoJobs.maxAttempts, owner: videoJobs.leaseOwner })
        .from(videoJobs)
        .where(and(eq(videoJobs.status, 'running'), isNotNull(videoJobs.leaseOwner), liveWorkers.length ? notInArray(videoJobs.leaseOwner, liveWorkers) : undefined));
    },
    async liveWorkers(since: Date) {
      return (await db.select({ id: workerHeartbeats.workerId }).from(workerHeartbeats).where(gt(workerHeartbeats.beatAt, since))).map((r) => r.id);
    },
    async runningIds() {
      return (await db.select({ id: videoJobs.id, attempts: videoJobs.attempts }).from(videoJobs).where(eq(videoJobs.status, 'running'))).map((r) => `${r.id}-${r.attempts}`);
    },

    /**
     * Queued rows not updated since `before` whose pg-boss job (`queue`) is gone, finished, or active
     * for longer than `staleSeconds` (a dead worker's): they need a new job.
     */
    async queuedWithoutJob(queue: string, staleSeconds: number, before: Date): Promise<string[]> {
      const { rows } = await database.sql.executeSql(
        `SELECT v.id FROM video_jobs v LEFT JOIN pgboss.job j ON j.name = $1 AND j.id = v.boss_job_id
          WHERE v.status = 'queued' AND v.updated_at < $3
            AND (j.id IS NULL OR j.state IN ('completed', 'cancelled', 'failed')
                 OR (j.state = 'active' AND j.started_on < now() - make_interval(secs => $2)))`,
        [queue, staleSeconds, before.toISOString()],
      );
      return rows.map((r) => String(r.id));
    },
  };
}

export type VideoJobsRepository = ReturnType<typeof createVideoJobsRepository>;

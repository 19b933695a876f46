import { and, count, desc, eq, gt, inArray, isNotNull, notInArray, sql, sum } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.js';
import { organizations, videoCreditGrants, videoJobs, workerHeartbeats } from '../../db/schema/index.js';

export type VideoJobRow = typeof videoJobs.$inferSelect;
export type NewVideoJobRow = typeof videoJobs.$inferInsert;

const CHARGED = ['reserved', 'spent'];

/** Drizzle queries of video generations and video credits; every organisation's query takes its id. */
export function createVideoRepository(db: Db) {
  return {
    transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
      return db.transaction(fn);
    },
    /** Serialises reservations of one organisation (the row lock is held until the transaction ends). */
    async lockOrganization(tx: Tx, organizationId: string) {
      await tx.select({ id: organizations.id }).from(organizations).where(eq(organizations.id, organizationId)).for('update');
    },
    /** Credits reserved or spent in `period`. */
    async creditsCharged(organizationId: string, period: string, q: Db | Tx = db) {
      const [row] = await q
        .select({ n: sum(videoJobs.credits) })
        .from(videoJobs)
        .where(and(eq(videoJobs.organizationId, organizationId), eq(videoJobs.creditPeriod, period), inArray(videoJobs.creditState, CHARGED)));
      return Number(row?.n ?? 0);
    },
    /** Credits reserved (not yet spent) in `period`. */
    async creditsReserved(organizationId: string, period: string, q: Db | Tx = db) {
      const [row] = await q
        .select({ n: sum(videoJobs.credits) })
        .from(videoJobs)
        .where(and(eq(videoJobs.organizationId, organizationId), eq(videoJobs.creditPeriod, period), eq(videoJobs.creditState, 'reserved')));
      return Number(row?.n ?? 0);
    },
    async creditsGranted(organizationId: string, period: string, q: Db | Tx = db) {
      const [row] = await q
        .select({ n: sum(videoCreditGrants.credits) })
        .from(videoCreditGrants)
        .where(and(eq(videoCreditGrants.organizationId, organizationId), eq(videoCreditGrants.period, period)));
      return Number(row?.n ?? 0);
    },
    async grantCredits(values: typeof videoCreditGrants.$inferInsert) {
      const [row] = await db.insert(videoCreditGrants).values(values).returning();
      return row!;
    },
    async insertJob(tx: Tx, values: NewVideoJobRow) {
      const [row] = await tx.insert(videoJobs).values(values).returning();
      return row!;
    },
    async setBossJob(tx: Tx, id: string, bossJobId: string | null) {
      await tx.update(videoJobs).set({ bossJobId }).where(eq(videoJobs.id, id));
    },
    async findJob(organizationId: string, id: string) {
      const [row] = await db
        .select()
        .from(videoJobs)
        .where(and(eq(videoJobs.organizationId, organizationId), eq(videoJobs.id, id)));
      return row;
    },
    async findJobById(id: string) {
      const [row] = await db.select().from(videoJobs).where(eq(videoJobs.id, id));
      return row;
    },
    async listPage(organizationId: string, offset: number, limit: number) {
      const [rows, [total]] = await Promise.all([
        db.select().from(videoJobs).where(eq(videoJobs.organizationId, organizationId)).orderBy(desc(videoJobs.createdAt), desc(videoJobs.id)).limit(limit).offset(offset),
        db.select({ n: count() }).from(videoJobs).where(eq(videoJobs.organizationId, organizationId)),
      ]);
      return { rows, total: total?.n ?? 0 };
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
  };
}

export type VideoRepository = ReturnType<typeof createVideoRepository>;

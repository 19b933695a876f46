import { and, count, desc, eq, inArray, sum } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.js';
import { organizations, videoCreditGrants, videoJobs } from '../../db/schema/index.js';

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
  };
}

export type VideoRepository = ReturnType<typeof createVideoRepository>;

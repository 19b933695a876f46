import { and, desc, eq, gte, like, lt, or, type SQL } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.js';
import { activityLog, type ActivityRow, type ActorKind } from '../../db/schema/index.js';

export type NewActivityRow = typeof activityLog.$inferInsert;

export interface ActivityFilter {
  from?: Date;
  to?: Date;
  actorKind?: ActorKind;
  actorId?: string;
  /** an exact action, or a prefix when it ends with `.` or `*` (`post.` = every post action) */
  action?: string;
  targetKind?: string;
  targetId?: string;
}

/** Where a page ends: the last entry's time and id (entries are newest first, id breaking ties). */
export interface ActivityPosition {
  at: Date;
  id: string;
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

export function createActivityRepository(db: Db) {
  return {
    async insert(rows: NewActivityRow[], tx?: Tx) {
      if (rows.length === 0) return;
      await (tx ?? db).insert(activityLog).values(rows);
    },

    /** Up to `limit` entries of the organisation, newest first, after `after` when given. */
    async list(organizationId: string, filter: ActivityFilter, after: ActivityPosition | undefined, limit: number): Promise<ActivityRow[]> {
      const where: (SQL | undefined)[] = [eq(activityLog.organizationId, organizationId)];
      if (filter.from) where.push(gte(activityLog.at, filter.from));
      if (filter.to) where.push(lt(activityLog.at, filter.to));
      if (filter.actorKind) where.push(eq(activityLog.actorKind, filter.actorKind));
      if (filter.actorId) where.push(eq(activityLog.actorId, filter.actorId));
      if (filter.action) {
        const prefix = filter.action.endsWith('*') ? filter.action.slice(0, -1) : filter.action.endsWith('.') ? filter.action : undefined;
        where.push(prefix !== undefined ? like(activityLog.action, `${escapeLike(prefix)}%`) : eq(activityLog.action, filter.action));
      }
      if (filter.targetKind) where.push(eq(activityLog.targetKind, filter.targetKind));
      if (filter.targetId) where.push(eq(activityLog.targetId, filter.targetId));
      if (after) where.push(or(lt(activityLog.at, after.at), and(eq(activityLog.at, after.at), lt(activityLog.id, after.id))));
      return db
        .select()
        .from(activityLog)
        .where(and(...where))
        .orderBy(desc(activityLog.at), desc(activityLog.id))
        .limit(limit);
    },

    /** Deletes entries older than `before` (every organisation's); answers how many. */
    async purge(before: Date): Promise<number> {
      const gone = await db.delete(activityLog).where(lt(activityLog.at, before)).returning({ id: activityLog.id });
      return gone.length;
    },
  };
}

export type ActivityRepository = ReturnType<typeof createActivityRepository>;

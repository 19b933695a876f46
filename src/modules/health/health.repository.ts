import { desc } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { workerHeartbeats } from '../../db/schema/index.js';

/** What readiness reads: whether the database answers, the migrations it has, and the workers' latest heartbeat. */
export function createHealthRepository(database: Database) {
  return {
    /**
     * How many migrations the database has applied (drizzle's own table, in both modes); also the
     * reachability check. Throws when the database is unreachable.
     */
    async countAppliedMigrations(): Promise<number> {
      const { rows } = await database.sql.executeSql('SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations');
      return Number(rows[0]?.n ?? 0);
    },

    /** The most recent heartbeat of any worker process. */
    async findLatestHeartbeat() {
      const [row] = await database.db.select().from(workerHeartbeats).orderBy(desc(workerHeartbeats.beatAt)).limit(1);
      return row;
    },
  };
}

export type HealthRepository = ReturnType<typeof createHealthRepository>;

import { desc } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { workerHeartbeats } from '../../db/schema/index.js';

/** What readiness reads: whether the database answers, and the workers' latest heartbeat. */
export function createHealthRepository(database: Database) {
  return {
    /** Throws when the database is unreachable. */
    async ping() {
      await database.sql.executeSql('SELECT 1');
    },

    /** The most recent heartbeat of any worker process. */
    async findLatestHeartbeat() {
      const [row] = await database.db.select().from(workerHeartbeats).orderBy(desc(workerHeartbeats.beatAt)).limit(1);
      return row;
    },
  };
}

export type HealthRepository = ReturnType<typeof createHealthRepository>;

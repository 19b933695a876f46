import { eq, gt } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { workerHeartbeats } from '../../db/schema/index.js';

/** The worker processes' heartbeat rows, as the workers themselves write and read them. */
export function createHeartbeatRepository(db: Db) {
  return {
    async saveBeat(workerId: string, role: string, at: Date) {
      await db
        .insert(workerHeartbeats)
        .values({ workerId, role, beatAt: at })
        .onConflictDoUpdate({ target: workerHeartbeats.workerId, set: { beatAt: at } });
    },

    async deleteWorker(workerId: string) {
      await db.delete(workerHeartbeats).where(eq(workerHeartbeats.workerId, workerId));
    },

    /** Ids of the workers that beat after `since` (the others are dead). */
    async findLiveWorkerIds(since: Date): Promise<string[]> {
      const rows = await db.select({ id: workerHeartbeats.workerId }).from(workerHeartbeats).where(gt(workerHeartbeats.beatAt, since));
      return rows.map((r) => r.id);
    },
  };
}

export type HeartbeatRepository = ReturnType<typeof createHeartbeatRepository>;

import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { desc, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { workerHeartbeats } from '../../db/schema/index.js';
import type { Clock } from '../../lib/clock.js';

/**
 * Each worker process writes a beat every few seconds from inside the publisher's loop
 * (publishing/dispatcher.ts), so a publisher that stopped ticking stops beating; `/readyz` treats
 * the publisher as alive when some worker beat recently.
 */
export function createHeartbeat(deps: { db: Db; clock: Clock; role: string; intervalSeconds: number; onError: (err: unknown) => void }) {
  const workerId = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  let timer: NodeJS.Timeout | undefined;

  async function beat() {
    const at = new Date(deps.clock.now());
    await deps.db
      .insert(workerHeartbeats)
      .values({ workerId, role: deps.role, beatAt: at })
      .onConflictDoUpdate({ target: workerHeartbeats.workerId, set: { beatAt: at } });
  }

  return {
    workerId,
    beat,
    async start() {
      await beat();
      timer = setInterval(() => beat().catch(deps.onError), deps.intervalSeconds * 1000);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
    },
    /** Removes this worker's row on a clean stop, so others take over its leases at once. */
    async forget() {
      await deps.db.delete(workerHeartbeats).where(eq(workerHeartbeats.workerId, workerId));
    },
  };
}

export async function findLatestHeartbeat(db: Db) {
  const [row] = await db.select().from(workerHeartbeats).orderBy(desc(workerHeartbeats.beatAt)).limit(1);
  return row;
}

import { and, eq, gt, isNull, lt } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { connectStates, instanceApps } from '../../db/schema/index.js';

export function createConnectStatesRepository(db: Db) {
  return {
    async insertState(values: typeof connectStates.$inferInsert) {
      await db.insert(connectStates).values(values);
    },

    /** The state, unused and unexpired, without using it up. */
    async findState(stateHash: string, identifier: string, now: Date) {
      const [row] = await db
        .select()
        .from(connectStates)
        .where(and(eq(connectStates.stateHash, stateHash), eq(connectStates.identifier, identifier), isNull(connectStates.usedAt), gt(connectStates.expiresAt, now)));
      return row;
    },

    /** Marks the state used and returns it, once: a second callback with it finds nothing. */
    async consumeState(stateHash: string, identifier: string, now: Date) {
      const [row] = await db
        .update(connectStates)
        .set({ usedAt: now })
        .where(
          and(
            eq(connectStates.stateHash, stateHash),
            eq(connectStates.identifier, identifier),
            isNull(connectStates.usedAt),
            gt(connectStates.expiresAt, now),
          ),
        )
        .returning();
      return row;
    },

    async deleteExpired(now: Date) {
      await db.delete(connectStates).where(lt(connectStates.expiresAt, now));
    },

    async findInstanceApp(identifier: string, instanceUrl: string) {
      const [row] = await db
        .select()
        .from(instanceApps)
        .where(and(eq(instanceApps.identifier, identifier), eq(instanceApps.instanceUrl, instanceUrl)));
      return row;
    },

    async saveInstanceApp(identifier: string, instanceUrl: string, app: string) {
      await db
        .insert(instanceApps)
        .values({ identifier, instanceUrl, app })
        .onConflictDoUpdate({ target: [instanceApps.identifier, instanceApps.instanceUrl], set: { app } });
    },
  };
}

export type ConnectStatesRepository = ReturnType<typeof createConnectStatesRepository>;

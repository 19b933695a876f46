import { and, asc, eq, inArray, isNotNull, isNull, lt } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.js';
import { integrations } from '../../db/schema/index.js';

export type IntegrationRow = typeof integrations.$inferSelect;

/**
 * What running an operation on a channel reads and writes of the channel's row: its stored
 * credentials (channel access, the token keeper) and the publisher's marks on it (reconnect
 * needed, publishing paused by a platform's rate limit). `q` lets a caller run a statement in its
 * own transaction.
 */
export function createChannelsRepository(db: Db) {
  return {
    /** The channel's row whatever its state (disconnected ones too: a queued post still names it). */
    async findChannel(id: string, q: Tx | Db = db) {
      const [row] = await q.select().from(integrations).where(eq(integrations.id, id));
      return row;
    },

    /** The channel's row unless it was disconnected. */
    async findLiveChannel(id: string) {
      const [row] = await db.select().from(integrations).where(and(eq(integrations.id, id), isNull(integrations.deletedAt)));
      return row;
    },

    /**
     * Stores refreshed credentials only if nobody stored others since `previous` was read
     * (compare-and-set: two processes refreshing at once keep one result). True when written.
     */
    async replaceCredentials(id: string, previous: string, next: string, tokenExpiresAt: Date | null, at: Date) {
      const rows = await db
        .update(integrations)
        .set({ credentials: next, tokenExpiresAt, refreshNeeded: false, updatedAt: at })
        .where(and(eq(integrations.id, id), eq(integrations.credentials, previous), isNull(integrations.deletedAt)))
        .returning({ id: integrations.id });
      return rows.length > 0;
    },

    /** Marks a channel as needing a reconnect; true when it was not marked yet. */
    async markRefreshNeeded(id: string, at: Date, q: Tx | Db = db) {
      const rows = await q
        .update(integrations)
        .set({ refreshNeeded: true, updatedAt: at })
        .where(and(eq(integrations.id, id), eq(integrations.refreshNeeded, false)))
        .returning({ id: integrations.id });
      return rows.length > 0;
    },

    /** Holds every publish to the channel until `until` (the platform asked the whole account to wait). */
    async blockPublishingUntil(id: string, until: Date, q: Tx | Db = db) {
      await q.update(integrations).set({ publishBlockedUntil: until }).where(eq(integrations.id, id));
    },

    /**
     * Channels that can still publish (not disconnected, not waiting for a reconnect) on these
     * platforms whose token is due for renewal before `before`, soonest first.
     */
    async findTokensDueBefore(before: Date, identifiers: readonly string[], limit: number) {
      if (identifiers.length === 0) return [];
      return db
        .select()
        .from(integrations)
        .where(
          and(
            isNull(integrations.deletedAt),
            eq(integrations.refreshNeeded, false),
            isNotNull(integrations.credentials),
            inArray(integrations.identifier, [...identifiers]),
            lt(integrations.tokenExpiresAt, before),
          ),
        )
        .orderBy(asc(integrations.tokenExpiresAt))
        .limit(limit);
    },
  };
}

export type ChannelsRepository = ReturnType<typeof createChannelsRepository>;

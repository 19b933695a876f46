import { and, asc, desc, eq, gte, inArray, isNull, lt, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.js';
import { evergreenChannelStates, evergreenItems, evergreenQueues, evergreenUses, integrations, posts } from '../../db/schema/index.js';

export type QueueRow = typeof evergreenQueues.$inferSelect;
export type ItemRow = typeof evergreenItems.$inferSelect;
export type UseRow = typeof evergreenUses.$inferSelect;
export type ChannelStateRow = typeof evergreenChannelStates.$inferSelect;
export type QueuePatch = Partial<Pick<QueueRow, 'name' | 'integrationIds' | 'order' | 'minGapDays' | 'horizonDays' | 'enabled' | 'updatedAt'>>;
export type ItemPatch = Partial<Pick<ItemRow, 'content' | 'variations' | 'media' | 'settings' | 'position'>>;

/** Evergreen queues, their items, fills (uses) and per-channel pause state: SQL only. */
export function createEvergreenRepository(db: Db) {
  const ownedQueue = (organizationId: string, id: string) =>
    and(eq(evergreenQueues.id, id), eq(evergreenQueues.organizationId, organizationId), isNull(evergreenQueues.deletedAt));

  return {
    transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
      return db.transaction(fn);
    },

    async insertQueue(values: typeof evergreenQueues.$inferInsert) {
      const [row] = await db.insert(evergreenQueues).values(values).returning();
      return row!;
    },

    async findQueue(organizationId: string, id: string) {
      const [row] = await db.select().from(evergreenQueues).where(ownedQueue(organizationId, id));
      return row;
    },

    listQueues: (organizationId: string) =>
      db.select().from(evergreenQueues).where(and(eq(evergreenQueues.organizationId, organizationId), isNull(evergreenQueues.deletedAt))).orderBy(asc(evergreenQueues.createdAt), asc(evergreenQueues.id)),

    /** Every enabled live queue of every organisation (the periodic fill). */
    listEnabledQueues: () =>
      db.select().from(evergreenQueues).where(and(eq(evergreenQueues.enabled, true), isNull(evergreenQueues.deletedAt))).orderBy(asc(evergreenQueues.createdAt)),

    async updateQueue(organizationId: string, id: string, patch: QueuePatch) {
      const [row] = await db.update(evergreenQueues).set(patch).where(ownedQueue(organizationId, id)).returning();
      return row;
    },

    async softDeleteQueue(organizationId: string, id: string, at: Date) {
      const [row] = await db.update(evergreenQueues).set({ deletedAt: at, updatedAt: at }).where(ownedQueue(organizationId, id)).returning();
      return row;
    },

    /** Live channels of the organisation (all of them, or those of `ids`). */
    listChannels: (organizationId: string, ids?: string[]) =>
      db
        .select({ id: integrations.id, identifier: integrations.identifier, name: integrations.name, disabled: integrations.disabled })
        .from(integrations)
        .where(and(eq(integrations.organizationId, organizationId), isNull(integrations.deletedAt), ids === undefined ? undefined : inArray(integrations.id, ids.length > 0 ? ids : ['00000000-0000-0000-0000-000000000000'])))
        .orderBy(asc(integrations.createdAt), asc(integrations.id)),

    /** Live items of a queue by position. */
    listItems: (queueId: string) =>
      db.select().from(evergreenItems).where(and(eq(evergreenItems.queueId, queueId), isNull(evergreenItems.deletedAt))).orderBy(asc(evergreenItems.position), asc(evergreenItems.createdAt)),

    async findItem(queueId: string, id: string) {
      const [row] = await db.select().from(evergreenItems).where(and(eq(evergreenItems.id, id), eq(evergreenItems.queueId, queueId), isNull(evergreenItems.deletedAt)));
      return row;
    },

    /** Appends an item after the queue's last position (the queue row locked, so two adds never share one). */
    async insertItem(values: Omit<typeof evergreenItems.$inferInsert, 'position'>) {
      return db.transaction(async (tx) => {
        await tx.select({ id: evergreenQueues.id }).from(evergreenQueues).where(eq(evergreenQueues.id, values.queueId)).for('update');
        const [last] = await tx
          .select({ p: sql<number>`coalesce(max(${evergreenItems.position}), -1)` })
          .from(evergreenItems)
          .where(eq(evergreenItems.queueId, values.queueId));
        const [row] = await tx.insert(evergreenItems).values({ ...values, position: Number(last?.p ?? -1) + 1 }).returning();
        return row!;
      });
    },

    async updateItem(queueId: string, id: string, patch: ItemPatch) {
      const [row] = await db.update(evergreenItems).set(patch).where(and(eq(evergreenItems.id, id), eq(evergreenItems.queueId, queueId), isNull(evergreenItems.deletedAt))).returning();
      return row;
    },

    async softDeleteItem(queueId: string, id: string, at: Date) {
      const [row] = await db.update(evergreenItems).set({ deletedAt: at }).where(and(eq(evergreenItems.id, id), eq(evergreenItems.queueId, queueId), isNull(evergreenItems.deletedAt))).returning();
      return row;
    },

    /** Fills of a channel by any queue from `since` on (the gap and rotation look at them), by slot. */
    listUses: (integrationId: string, since: Date) =>
      db.select().from(evergreenUses).where(and(eq(evergreenUses.integrationId, integrationId), gte(evergreenUses.slotAt, since))).orderBy(asc(evergreenUses.slotAt)),

    /** The latest fill of this queue on the channel (where a sequence goes on from). */
    async lastUse(queueId: string, integrationId: string) {
      const [row] = await db
        .select()
        .from(evergreenUses)
        .where(and(eq(evergreenUses.queueId, queueId), eq(evergreenUses.integrationId, integrationId)))
        .orderBy(desc(evergreenUses.slotAt))
        .limit(1);
      return row;
    },

    /** The latest fill of each item of the queue on the channel (for the variation in turn). */
    async lastVariations(queueId: string, integrationId: string) {
      const rows = await db
        .selectDistinctOn([evergreenUses.itemId], { itemId: evergreenUses.itemId, variation: evergreenUses.variation })
        .from(evergreenUses)
        .where(and(eq(evergreenUses.queueId, queueId), eq(evergreenUses.integrationId, integrationId)))
        .orderBy(evergreenUses.itemId, desc(evergreenUses.slotAt));
      return new Map(rows.map((r) => [r.itemId, r.variation]));
    },

    /** Takes the channel's slot for this fill; undefined when another fill has it already. */
    async claimSlot(tx: Tx, values: typeof evergreenUses.$inferInsert) {
      const [row] = await tx.insert(evergreenUses).values(values).onConflictDoNothing({ target: [evergreenUses.integrationId, evergreenUses.slotAt] }).returning();
      return row;
    },

    setUsePost: (tx: Tx, id: string, postId: string) => tx.update(evergreenUses).set({ postId }).where(eq(evergreenUses.id, id)),

    /** Claims of the queue made before `before` that never got their post (a fill that crashed in between). */
    releaseStaleClaims: (queueId: string, before: Date) =>
      db.delete(evergreenUses).where(and(eq(evergreenUses.queueId, queueId), isNull(evergreenUses.postId), isNull(evergreenUses.outcome), lt(evergreenUses.createdAt, before))),

    /** Fills of the queue whose post has ended (published, failed, or gone) and whose outcome is not recorded yet, by slot. */
    unrecordedOutcomes: (queueId: string) =>
      db
        .select({ id: evergreenUses.id, integrationId: evergreenUses.integrationId, state: posts.state, deletedAt: posts.deletedAt, error: posts.error })
        .from(evergreenUses)
        .leftJoin(posts, eq(posts.id, evergreenUses.postId))
        .where(and(eq(evergreenUses.queueId, queueId), isNull(evergreenUses.outcome), sql`(${posts.id} is null or ${posts.deletedAt} is not null or ${posts.state} in ('PUBLISHED', 'ERROR'))`))
        .orderBy(asc(evergreenUses.slotAt)),

    setOutcome: (tx: Tx, id: string, outcome: NonNullable<UseRow['outcome']>) => tx.update(evergreenUses).set({ outcome }).where(eq(evergreenUses.id, id)),

    listChannelStates: (queueId: string) => db.select().from(evergreenChannelStates).where(eq(evergreenChannelStates.queueId, queueId)),

    /** The channel's state row in this queue, created when missing, locked for the transaction. */
    async lockChannelState(tx: Tx, queueId: string, integrationId: string, at: Date) {
      await tx.insert(evergreenChannelStates).values({ queueId, integrationId, updatedAt: at }).onConflictDoNothing();
      const [row] = await tx
        .select()
        .from(evergreenChannelStates)
        .where(and(eq(evergreenChannelStates.queueId, queueId), eq(evergreenChannelStates.integrationId, integrationId)))
        .for('update');
      return row!;
    },

    async updateChannelState(tx: Tx | undefined, queueId: string, integrationId: string, patch: Partial<Pick<ChannelStateRow, 'consecutiveFailures' | 'pausedAt' | 'pausedReason' | 'updatedAt'>>) {
      const [row] = await (tx ?? db)
        .update(evergreenChannelStates)
        .set(patch)
        .where(and(eq(evergreenChannelStates.queueId, queueId), eq(evergreenChannelStates.integrationId, integrationId)))
        .returning();
      return row;
    },
  };
}

export type EvergreenRepository = ReturnType<typeof createEvergreenRepository>;

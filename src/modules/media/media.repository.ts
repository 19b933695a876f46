import { and, asc, count, desc, eq, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.js';
import { isUuid } from '../../lib/ids.js';
import { integrations, media, mediaUnclaimed, posts } from '../../db/schema/index.js';

export type MediaRow = typeof media.$inferSelect;
export type NewMediaRow = typeof media.$inferInsert;

export function createMediaRepository(db: Db) {
  const live = (organizationId: string) => and(eq(media.organizationId, organizationId), isNull(media.deletedAt));
  return {
    /** Records that `storageKey` is about to be written, or its row deleted (see `mediaUnclaimed`). */
    async markUnclaimed(storageKey: string, at: Date) {
      await db.insert(mediaUnclaimed).values({ storageKey, createdAt: at }).onConflictDoNothing();
    },
    async forgetUnclaimed(storageKey: string) {
      await db.delete(mediaUnclaimed).where(eq(mediaUnclaimed.storageKey, storageKey));
    },
    /** Unclaimed keys recorded before `before`, oldest first. */
    async unclaimedBefore(before: Date, limit: number) {
      return db.select().from(mediaUnclaimed).where(lt(mediaUnclaimed.createdAt, before)).orderBy(asc(mediaUnclaimed.createdAt)).limit(limit);
    },
    /** Whether a live media row names `storageKey` (its object must never be removed). */
    async isLiveKey(storageKey: string) {
      const [row] = await db.select({ id: media.id }).from(media).where(and(eq(media.storageKey, storageKey), isNull(media.deletedAt))).limit(1);
      return row !== undefined;
    },
    /** Inserts the row of an upload, which claims its key, in one transaction. */
    /** Inserts the row and claims its key; `onInsert` runs in the same transaction. */
    async insertMedia(values: NewMediaRow, onInsert?: (tx: Tx, row: MediaRow) => Promise<void>) {
      return db.transaction(async (tx) => {
        const [row] = await tx.insert(media).values(values).returning();
        await tx.delete(mediaUnclaimed).where(eq(mediaUnclaimed.storageKey, values.storageKey));
        await onInsert?.(tx, row!);
        return row!;
      });
    },
    async listPage(organizationId: string, offset: number, limit: number) {
      const [rows, [total]] = await Promise.all([
        db.select().from(media).where(live(organizationId)).orderBy(desc(media.createdAt), desc(media.id)).limit(limit).offset(offset),
        db.select({ n: count() }).from(media).where(live(organizationId)),
      ]);
      return { rows, total: total?.n ?? 0 };
    },
    async findMedia(organizationId: string, id: string) {
      const [row] = await db.select().from(media).where(and(live(organizationId), eq(media.id, id)));
      return row;
    },
    /** Live media of the organisation named by id or by the path the service gave it (posts attaching media). */
    async findLive(organizationId: string, ids: string[], paths: string[], q: Tx | Db = db) {
      const validIds = [...new Set(ids.filter(isUuid))];
      const validPaths = [...new Set(paths)];
      if (validIds.length === 0 && validPaths.length === 0) return [];
      return q
        .select()
        .from(media)
        .where(and(live(organizationId), or(validIds.length ? inArray(media.id, validIds) : undefined, validPaths.length ? inArray(media.path, validPaths) : undefined)));
    },
    /** Rows by id, deleted ones included (what stored posts name), in `q`'s transaction if given. */
    async findByIds(ids: string[], q: Tx | Db = db) {
      const valid = [...new Set(ids.filter(isUuid))];
      if (valid.length === 0) return [];
      return q.select().from(media).where(inArray(media.id, valid));
    },
    /** Any organisation's live row by id (the publisher opening a post's media). */
    async findById(id: string) {
      const [row] = await db.select().from(media).where(and(eq(media.id, id), isNull(media.deletedAt)));
      return row;
    },
    /** Any live row by storage key (serving `/media/*`). */
    async findByStorageKey(storageKey: string) {
      const [row] = await db.select().from(media).where(and(eq(media.storageKey, storageKey), isNull(media.deletedAt)));
      return row;
    },
    /** Draft or queued posts of the organisation whose `image` names this media id. */
    async pendingPostsUsing(organizationId: string, id: string) {
      return db
        .select({ id: posts.id })
        .from(posts)
        .where(
          and(
            eq(posts.organizationId, organizationId),
            isNull(posts.deletedAt),
            inArray(posts.state, ['QUEUE', 'DRAFT']),
            sql`${posts.image} @> ${JSON.stringify([{ id }])}::jsonb`,
          ),
        );
    },
    /** Every live post (or thread item) that carries the item, whatever its state; newest date first. */
    async postsUsing(organizationId: string, id: string) {
      return db
        .select({
          id: posts.id,
          parentPostId: posts.parentPostId,
          state: posts.state,
          publishDate: posts.publishDate,
          integration: { id: integrations.id, name: integrations.name, identifier: integrations.identifier },
        })
        .from(posts)
        .innerJoin(integrations, eq(integrations.id, posts.integrationId))
        .where(and(eq(posts.organizationId, organizationId), isNull(posts.deletedAt), sql`${posts.image} @> ${JSON.stringify([{ id }])}::jsonb`))
        .orderBy(desc(posts.publishDate), asc(posts.id))
        .limit(200);
    },
    /** Soft-deletes the row and marks its key unclaimed, together (the caller removes the object, then forgets the key). */
    async softDelete(organizationId: string, id: string, at: Date) {
      return db.transaction(async (tx) => {
        const [row] = await tx.update(media).set({ deletedAt: at }).where(and(live(organizationId), eq(media.id, id))).returning();
        if (row) await tx.insert(mediaUnclaimed).values({ storageKey: row.storageKey, createdAt: at }).onConflictDoNothing();
        return row;
      });
    },
  };
}

export type MediaRepository = ReturnType<typeof createMediaRepository>;

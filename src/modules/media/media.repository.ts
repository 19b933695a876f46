import { and, count, desc, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { media, posts } from '../../db/schema/index.js';

export type MediaRow = typeof media.$inferSelect;
export type NewMediaRow = typeof media.$inferInsert;

export function createMediaRepository(db: Db) {
  const live = (organizationId: string) => and(eq(media.organizationId, organizationId), isNull(media.deletedAt));
  return {
    async insertMedia(values: NewMediaRow) {
      const [row] = await db.insert(media).values(values).returning();
      return row!;
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
    async softDelete(organizationId: string, id: string, at: Date) {
      const [row] = await db.update(media).set({ deletedAt: at }).where(and(live(organizationId), eq(media.id, id))).returning();
      return row;
    },
  };
}

export type MediaRepository = ReturnType<typeof createMediaRepository>;

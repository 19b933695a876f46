import { and, count, desc, eq, gte, inArray, isNull, lte } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { posts } from '../../db/schema/index.js';

/** A live, published, top-level post (the first item of its thread). */
const published = and(eq(posts.state, 'PUBLISHED'), isNull(posts.deletedAt), isNull(posts.parentPostId));

export function createAnalyticsRepository(db: Db) {
  return {
    /** The post (of the organisation) whose figures are asked for. */
    async findPost(organizationId: string, id: string) {
      const [row] = await db
        .select({ id: posts.id, integrationId: posts.integrationId, releaseId: posts.releaseId, state: posts.state })
        .from(posts)
        .where(and(eq(posts.id, id), eq(posts.organizationId, organizationId), isNull(posts.deletedAt)));
      return row;
    },

    /** How many top-level posts each channel published between `from` and `to` (thread items not counted). */
    async countPublished(organizationId: string, from: Date, to: Date) {
      return db
        .select({ integrationId: posts.integrationId, posts: count() })
        .from(posts)
        .where(and(eq(posts.organizationId, organizationId), published, gte(posts.publishDate, from), lte(posts.publishDate, to)))
        .groupBy(posts.integrationId);
    },

    /** The newest `limit` top-level posts published between `from` and `to`, on the given channels. */
    async listPublished(organizationId: string, integrationIds: string[], from: Date, to: Date, limit: number) {
      if (integrationIds.length === 0) return [];
      return db
        .select({ id: posts.id, integrationId: posts.integrationId, content: posts.content, publishDate: posts.publishDate, releaseId: posts.releaseId, releaseUrl: posts.releaseUrl })
        .from(posts)
        .where(and(eq(posts.organizationId, organizationId), published, inArray(posts.integrationId, integrationIds), gte(posts.publishDate, from), lte(posts.publishDate, to)))
        .orderBy(desc(posts.publishDate), desc(posts.id))
        .limit(limit);
    },
  };
}

export type AnalyticsRepository = ReturnType<typeof createAnalyticsRepository>;

import { and, eq, isNull } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { posts } from '../../db/schema/index.js';

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
  };
}

export type AnalyticsRepository = ReturnType<typeof createAnalyticsRepository>;

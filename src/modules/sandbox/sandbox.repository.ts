import { and, asc, eq, isNotNull, isNull } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { integrations } from '../../db/schema/integrations.js';
import { posts } from '../../db/schema/posts.js';

/** What the sandbox reads of the organisation's own data: its sandbox channels, and their published posts for the feed. */
export function createSandboxRepository(db: Db) {
  return {
    /** the organisation's live sandbox channels of a platform, with the account keys to take them back */
    async channelsOf(organizationId: string, identifier: string) {
      return db
        .select({ id: integrations.id, name: integrations.name, sandboxKey: integrations.sandboxKey })
        .from(integrations)
        .where(and(eq(integrations.organizationId, organizationId), eq(integrations.identifier, identifier), eq(integrations.sandbox, true), isNull(integrations.deletedAt)));
    },

    async channel(organizationId: string, id: string) {
      const [row] = await db
        .select()
        .from(integrations)
        .where(and(eq(integrations.id, id), eq(integrations.organizationId, organizationId), isNull(integrations.deletedAt)));
      return row;
    },

    /** the channel's posts that went out (the feed's items are matched to them by the platform id) */
    async publishedPosts(integrationId: string) {
      return db
        .select({ id: posts.id, group: posts.group, releaseId: posts.releaseId, releaseUrl: posts.releaseUrl, image: posts.image, publishedAt: posts.publishedAt })
        .from(posts)
        .where(and(eq(posts.integrationId, integrationId), isNotNull(posts.releaseId), isNull(posts.deletedAt)))
        .orderBy(asc(posts.publishedAt));
    },
  };
}

export type SandboxRepository = ReturnType<typeof createSandboxRepository>;

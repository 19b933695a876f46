import { and, asc, eq, isNotNull, isNull } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { isUuid } from '../../lib/ids.js';
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
      if (!isUuid(id)) return undefined;
      const [row] = await db
        .select()
        .from(integrations)
        .where(and(eq(integrations.id, id), eq(integrations.organizationId, organizationId), isNull(integrations.deletedAt)));
      return row;
    },

    /** whether the channel of the organisation is a sandbox channel (undefined: no such channel) */
    async channelSandbox(organizationId: string, id: string): Promise<boolean | undefined> {
      if (!isUuid(id)) return undefined;
      const [row] = await db
        .select({ sandbox: integrations.sandbox })
        .from(integrations)
        .where(and(eq(integrations.id, id), eq(integrations.organizationId, organizationId)));
      return row?.sandbox;
    },

    /** whether every channel the posts (by post id, or by group) are on is a sandbox channel; undefined: no such post */
    async postsSandbox(organizationId: string, match: { postId: string } | { group: string }): Promise<boolean | undefined> {
      if ('postId' in match && !isUuid(match.postId)) return undefined;
      const rows = await db
        .select({ sandbox: integrations.sandbox })
        .from(posts)
        .innerJoin(integrations, eq(integrations.id, posts.integrationId))
        .where(and(eq(posts.organizationId, organizationId), 'postId' in match ? eq(posts.id, match.postId) : eq(posts.group, match.group)));
      if (rows.length === 0) return undefined;
      return rows.every((r) => r.sandbox);
    },

    async sandboxChannelIds(organizationId: string): Promise<Set<string>> {
      const rows = await db
        .select({ id: integrations.id })
        .from(integrations)
        .where(and(eq(integrations.organizationId, organizationId), eq(integrations.sandbox, true)));
      return new Set(rows.map((r) => r.id));
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

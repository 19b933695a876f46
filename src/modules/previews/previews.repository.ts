import { and, asc, desc, eq, gte, inArray, isNull, lt } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { customers, integrations, organizations, posts, previewLinks, type PreviewLinkRow } from '../../db/schema/index.js';

export type NewPreviewLink = Pick<
  PreviewLinkRow,
  'organizationId' | 'tokenHash' | 'kind' | 'group' | 'fromDate' | 'toDate' | 'customerId' | 'title' | 'allowApproval' | 'passwordHash' | 'expiresAt' | 'createdByName' | 'createdAt'
>;

/** Most root posts (one per channel and group) a range link shows; the earliest are kept. */
export const RANGE_ROOT_LIMIT = 1000;

/** The columns of a post (and its channel) a preview shows or needs to group them; nothing else is read. */
const previewColumns = {
  id: posts.id,
  group: posts.group,
  parentPostId: posts.parentPostId,
  position: posts.position,
  delay: posts.delay,
  state: posts.state,
  approval: posts.approval,
  publishDate: posts.publishDate,
  content: posts.content,
  image: posts.image,
  settings: posts.settings,
  integrationId: posts.integrationId,
  channelName: integrations.name,
  channelIdentifier: integrations.identifier,
  channelPicture: integrations.picture,
};

export function createPreviewsRepository(db: Db) {
  const livePost = (organizationId: string) => and(eq(posts.organizationId, organizationId), isNull(posts.deletedAt));

  /** The thread items (live) of these roots. */
  async function threadItems(organizationId: string, rootIds: string[]) {
    if (rootIds.length === 0) return [];
    return db
      .select(previewColumns)
      .from(posts)
      .innerJoin(integrations, eq(integrations.id, posts.integrationId))
      .where(and(livePost(organizationId), inArray(posts.parentPostId, rootIds)))
      .orderBy(asc(posts.position));
  }

  return {
    async insertLink(values: NewPreviewLink) {
      const [row] = await db.insert(previewLinks).values(values).returning();
      return row!;
    },

    async listLinks(organizationId: string, group?: string) {
      return db
        .select()
        .from(previewLinks)
        .where(and(eq(previewLinks.organizationId, organizationId), group === undefined ? undefined : eq(previewLinks.group, group)))
        .orderBy(desc(previewLinks.createdAt), desc(previewLinks.id));
    },

    async findLink(organizationId: string, id: string) {
      const [row] = await db
        .select()
        .from(previewLinks)
        .where(and(eq(previewLinks.organizationId, organizationId), eq(previewLinks.id, id)));
      return row;
    },

    async findByTokenHash(tokenHash: string) {
      const [row] = await db.select().from(previewLinks).where(eq(previewLinks.tokenHash, tokenHash));
      return row;
    },

    /** Sets `revoked_at` unless it is set; the row when this call revoked it. */
    async revokeLink(organizationId: string, id: string, at: Date) {
      const [row] = await db
        .update(previewLinks)
        .set({ revokedAt: at })
        .where(and(eq(previewLinks.organizationId, organizationId), eq(previewLinks.id, id), isNull(previewLinks.revokedAt)))
        .returning();
      return row;
    },

    async touchViewed(id: string, at: Date) {
      await db.update(previewLinks).set({ lastViewedAt: at }).where(eq(previewLinks.id, id));
    },

    async organizationName(organizationId: string): Promise<string | undefined> {
      const [row] = await db.select({ name: organizations.name }).from(organizations).where(eq(organizations.id, organizationId));
      return row?.name;
    },

    async hasLiveGroup(organizationId: string, group: string): Promise<boolean> {
      const [row] = await db
        .select({ id: posts.id })
        .from(posts)
        .where(and(livePost(organizationId), eq(posts.group, group)))
        .limit(1);
      return row !== undefined;
    },

    async hasCustomer(organizationId: string, customerId: string): Promise<boolean> {
      const [row] = await db
        .select({ id: customers.id })
        .from(customers)
        .where(and(eq(customers.organizationId, organizationId), eq(customers.id, customerId), isNull(customers.deletedAt)));
      return row !== undefined;
    },

    /** The channels of a group's live posts. */
    async channelsOfGroup(organizationId: string, group: string): Promise<string[]> {
      const rows = await db
        .selectDistinct({ id: posts.integrationId })
        .from(posts)
        .where(and(livePost(organizationId), eq(posts.group, group)));
      return rows.map((r) => r.id);
    },

    /** The organisation's live channels (of one client group when `customerId` is given). */
    async channelsOf(organizationId: string, customerId: string | null): Promise<string[]> {
      const rows = await db
        .select({ id: integrations.id })
        .from(integrations)
        .where(and(eq(integrations.organizationId, organizationId), isNull(integrations.deletedAt), customerId === null ? undefined : eq(integrations.customerId, customerId)));
      return rows.map((r) => r.id);
    },

    /** The live posts of a group: its roots (one per channel) and their thread items. */
    async postsOfGroup(organizationId: string, group: string) {
      const roots = await db
        .select(previewColumns)
        .from(posts)
        .innerJoin(integrations, eq(integrations.id, posts.integrationId))
        .where(and(livePost(organizationId), eq(posts.group, group), isNull(posts.parentPostId)))
        .orderBy(asc(posts.publishDate), asc(integrations.name), asc(posts.id));
      return [...roots, ...(await threadItems(organizationId, roots.map((r) => r.id)))];
    },

    /**
     * The live root posts published in [from, to) (on the client group's channels when `customerId`
     * is given), earliest first, at most RANGE_ROOT_LIMIT, with their thread items.
     */
    async postsInRange(organizationId: string, from: Date, to: Date, customerId: string | null) {
      const roots = await db
        .select(previewColumns)
        .from(posts)
        .innerJoin(integrations, eq(integrations.id, posts.integrationId))
        .where(
          and(
            livePost(organizationId),
            isNull(posts.parentPostId),
            gte(posts.publishDate, from),
            lt(posts.publishDate, to),
            customerId === null ? undefined : eq(integrations.customerId, customerId),
          ),
        )
        .orderBy(asc(posts.publishDate), asc(posts.group), asc(integrations.name), asc(posts.id))
        .limit(RANGE_ROOT_LIMIT);
      return [...roots, ...(await threadItems(organizationId, roots.map((r) => r.id)))];
    },
  };
}

export type PreviewsRepository = ReturnType<typeof createPreviewsRepository>;
export type PreviewPostRow = Awaited<ReturnType<PreviewsRepository['postsOfGroup']>>[number];

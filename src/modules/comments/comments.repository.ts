import { and, asc, eq, inArray, isNull } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { apiKeys, memberships, postComments, posts, users, type PostCommentRow } from '../../db/schema/index.js';

export type NewComment = Pick<PostCommentRow, 'organizationId' | 'group' | 'postId' | 'authorKind' | 'authorId' | 'authorName' | 'body' | 'mentions' | 'createdAt' | 'updatedAt'>;

export function createCommentsRepository(db: Db) {
  const livePosts = (organizationId: string, group: string) => and(eq(posts.organizationId, organizationId), eq(posts.group, group), isNull(posts.deletedAt));
  return {
    /** The first live post of the group (its top item, earliest first): where links to the thread go; undefined when the group has none. */
    async firstPostOfGroup(organizationId: string, group: string): Promise<string | undefined> {
      const [row] = await db
        .select({ id: posts.id })
        .from(posts)
        .where(and(livePosts(organizationId, group), isNull(posts.parentPostId)))
        .orderBy(asc(posts.publishDate), asc(posts.id))
        .limit(1);
      if (row) return row.id;
      const [any] = await db.select({ id: posts.id }).from(posts).where(livePosts(organizationId, group)).limit(1);
      return any?.id;
    },

    async isPostOfGroup(organizationId: string, group: string, postId: string): Promise<boolean> {
      const [row] = await db.select({ id: posts.id }).from(posts).where(and(livePosts(organizationId, group), eq(posts.id, postId))).limit(1);
      return row !== undefined;
    },

    /** Members of the organisation among `userIds`, with the name and address mail and lists use. */
    async membersAmong(organizationId: string, userIds: string[]) {
      if (userIds.length === 0) return [];
      return db
        .select({ id: users.id, name: users.name, email: users.email })
        .from(memberships)
        .innerJoin(users, eq(users.id, memberships.userId))
        .where(and(eq(memberships.organizationId, organizationId), inArray(memberships.userId, userIds)));
    },

    /** Names of users (members or former members) by id. */
    async userNames(userIds: string[]) {
      if (userIds.length === 0) return [];
      return db.select({ id: users.id, name: users.name, email: users.email }).from(users).where(inArray(users.id, userIds));
    },

    async apiKeyName(organizationId: string, id: string): Promise<string | undefined> {
      const [row] = await db.select({ name: apiKeys.name }).from(apiKeys).where(and(eq(apiKeys.organizationId, organizationId), eq(apiKeys.id, id)));
      return row?.name;
    },

    async listComments(organizationId: string, group: string, postId?: string) {
      return db
        .select()
        .from(postComments)
        .where(and(eq(postComments.organizationId, organizationId), eq(postComments.group, group), isNull(postComments.deletedAt), postId ? eq(postComments.postId, postId) : undefined))
        .orderBy(asc(postComments.createdAt), asc(postComments.id));
    },

    async findComment(organizationId: string, id: string) {
      const [row] = await db
        .select()
        .from(postComments)
        .where(and(eq(postComments.organizationId, organizationId), eq(postComments.id, id), isNull(postComments.deletedAt)));
      return row;
    },

    async insertComment(values: NewComment) {
      const [row] = await db.insert(postComments).values(values).returning();
      return row!;
    },

    async updateComment(organizationId: string, id: string, values: Partial<Pick<PostCommentRow, 'body' | 'mentions' | 'updatedAt' | 'resolvedAt' | 'resolvedByName' | 'deletedAt'>>) {
      const [row] = await db
        .update(postComments)
        .set(values)
        .where(and(eq(postComments.organizationId, organizationId), eq(postComments.id, id), isNull(postComments.deletedAt)))
        .returning();
      return row;
    },
  };
}

export type CommentsRepository = ReturnType<typeof createCommentsRepository>;

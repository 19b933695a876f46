import { and, asc, eq, gte, inArray, isNull, lt, lte, ne, or, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.js';
import { idempotencyKeys, integrations, posts, postSeries } from '../../db/schema/index.js';
import { isUuid } from '../../lib/ids.js';

export type PostRow = typeof posts.$inferSelect;
export type NewPostRow = typeof posts.$inferInsert;
export type { IntegrationRow } from '../integrations/integrations.repository.js';
export type { MediaRow } from '../media/media.repository.js';

/** Most root posts one `GET /posts` answers; a wider window is refused, never cut silently. */
export const LIST_LIMIT = 5000;

export function createPostsRepository(db: Db) {
  return {
    transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
      return db.transaction(fn);
    },

    /** Live channels of the organisation among `ids` (non-UUIDs are simply not found). */
    async findIntegrations(organizationId: string, ids: string[], q: Tx | Db = db) {
      const valid = [...new Set(ids.filter(isUuid))];
      if (valid.length === 0) return [];
      return q
        .select()
        .from(integrations)
        .where(and(eq(integrations.organizationId, organizationId), inArray(integrations.id, valid), isNull(integrations.deletedAt)));
    },

    async findIntegration(id: string, tx: Tx | Db = db) {
      const [row] = await tx.select().from(integrations).where(eq(integrations.id, id));
      return row;
    },

    /** Live rows of the organisation with these ids, locked for the transaction. */
    async lockRows(tx: Tx, organizationId: string, ids: string[]) {
      const valid = [...new Set(ids.filter(isUuid))];
      if (valid.length === 0) return [];
      return tx
        .select()
        .from(posts)
        .where(and(eq(posts.organizationId, organizationId), inArray(posts.id, valid), isNull(posts.deletedAt)))
        .for('update');
    },

    /** Live rows of a group (all channels), locked. */
    async lockGroup(tx: Tx, organizationId: string, group: string) {
      // No stored group holds U+0000 (PostgreSQL text cannot), and comparing with one is an error.
      if (group.includes('\u0000')) return [];
      return tx
        .select()
        .from(posts)
        .where(and(eq(posts.organizationId, organizationId), eq(posts.group, group), isNull(posts.deletedAt)))
        .orderBy(asc(posts.position))
        .for('update');
    },

    /** The root of `id` (itself when it is a root) and all its thread items, in order. Not locked. */
    async findTree(organizationId: string, id: string, tx: Tx | Db = db) {
      if (!isUuid(id)) return undefined;
      const [row] = await tx
        .select()
        .from(posts)
        .where(and(eq(posts.id, id), eq(posts.organizationId, organizationId), isNull(posts.deletedAt)));
      if (!row) return undefined;
      const rootId = row.parentPostId ?? row.id;
      const rows = await tx
        .select()
        .from(posts)
        .where(and(or(eq(posts.id, rootId), eq(posts.parentPostId, rootId)), isNull(posts.deletedAt)))
        .orderBy(asc(posts.position));
      const root = rows.find((r) => r.id === rootId);
      return root ? { root, items: rows.filter((r) => r.id !== rootId) } : undefined;
    },

    /** Same as findTree, with every row locked (FOR UPDATE). */
    async lockTree(tx: Tx, organizationId: string, id: string) {
      const tree = await this.findTree(organizationId, id, tx);
      if (!tree) return undefined;
      const ids = [tree.root.id, ...tree.items.map((i) => i.id)];
      const rows = await tx.select().from(posts).where(inArray(posts.id, ids)).orderBy(asc(posts.position)).for('update');
      const root = rows.find((r) => r.id === tree.root.id && r.deletedAt === null);
      return root ? { root, items: rows.filter((r) => r.id !== root.id && r.deletedAt === null) } : undefined;
    },

    async insertRows(tx: Tx, rows: NewPostRow[]) {
      if (rows.length === 0) return [];
      return tx.insert(posts).values(rows).returning();
    },

    async updateRow(tx: Tx, id: string, patch: Partial<NewPostRow>) {
      const [row] = await tx.update(posts).set(patch).where(eq(posts.id, id)).returning();
      return row!;
    },

    async softDelete(tx: Tx, ids: string[], at: Date) {
      if (ids.length === 0) return;
      await tx.update(posts).set({ deletedAt: at, updatedAt: at }).where(inArray(posts.id, ids));
    },

    /**
     * Root posts with `publishDate` in [start, end], of live channels (disabled ones included),
     * ordered by publish date, with their thread items and channel.
     */
    /** Root posts with publish date in [start, end] (optionally one client group's), or of one post group. */
    async listRoots(organizationId: string, filter: { start: Date; end: Date; customerId?: string } | { group: string }) {
      const range = 'group' in filter ? undefined : filter;
      const roots = await db
        .select({
          post: posts,
          integration: { id: integrations.id, identifier: integrations.identifier, name: integrations.name, picture: integrations.picture },
          // Postiz's `inter` (repeat every N days): the interval of a daily series
          inter: sql<number | null>`case when ${postSeries.rule}->>'frequency' = 'daily' then (${postSeries.rule}->>'interval')::int end`,
        })
        .from(posts)
        .innerJoin(integrations, eq(integrations.id, posts.integrationId))
        .leftJoin(postSeries, eq(postSeries.id, posts.seriesId))
        .where(
          and(
            eq(posts.organizationId, organizationId),
            isNull(posts.parentPostId),
            isNull(posts.deletedAt),
            range ? gte(posts.publishDate, range.start) : undefined,
            range ? lte(posts.publishDate, range.end) : undefined,
            'group' in filter ? eq(posts.group, filter.group) : undefined,
            isNull(integrations.deletedAt),
            range?.customerId === undefined ? undefined : eq(integrations.customerId, range.customerId),
          ),
        )
        .orderBy(asc(posts.publishDate), asc(posts.createdAt), asc(posts.id))
        .limit(LIST_LIMIT + 1);
      if (roots.length > LIST_LIMIT) return { roots, items: [], tooMany: true };
      const rootIds = roots.map((r) => r.post.id);
      const items = rootIds.length
        ? await db
            .select()
            .from(posts)
            .where(and(inArray(posts.parentPostId, rootIds), isNull(posts.deletedAt)))
            .orderBy(asc(posts.position))
        : [];
      return { roots, items, tooMany: false };
    },

    /** Whether the organisation has written any post (a draft counts; deleted ones do not). One indexed row at most. */
    async hasAnyPost(organizationId: string) {
      const [row] = await db
        .select({ id: posts.id })
        .from(posts)
        .where(and(eq(posts.organizationId, organizationId), isNull(posts.deletedAt)))
        .limit(1);
      return row !== undefined;
    },

    /** Root posts of the organisation counted against "scheduled posts per month". */
    async countScheduledInMonth(organizationId: string, from: Date, to: Date, q: Db | Tx = db) {
      const [row] = await q
        .select({ n: sql<number>`count(*)::int` })
        .from(posts)
        .where(
          and(
            eq(posts.organizationId, organizationId),
            isNull(posts.parentPostId),
            isNull(posts.deletedAt),
            ne(posts.state, 'DRAFT'),
            gte(posts.publishDate, from),
            lt(posts.publishDate, to),
          ),
        );
      return row?.n ?? 0;
    },

    async findIdempotency(organizationId: string, key: string, notBefore: Date) {
      const [row] = await db
        .select()
        .from(idempotencyKeys)
        .where(and(eq(idempotencyKeys.organizationId, organizationId), eq(idempotencyKeys.key, key), gte(idempotencyKeys.createdAt, notBefore)));
      return row;
    },

    /** Records the first response for a key; false when another request recorded it first. */
    async saveIdempotency(tx: Tx, values: typeof idempotencyKeys.$inferInsert) {
      const rows = await tx
        .insert(idempotencyKeys)
        .values(values)
        .onConflictDoUpdate({
          target: [idempotencyKeys.organizationId, idempotencyKeys.key],
          set: { requestHash: values.requestHash, statusCode: values.statusCode, response: values.response, createdAt: values.createdAt },
          setWhere: lt(idempotencyKeys.createdAt, new Date(values.createdAt.getTime() - 24 * 3600_000)),
        })
        .returning({ key: idempotencyKeys.key });
      return rows.length === 1;
    },

    async sweepIdempotency(before: Date) {
      await db.delete(idempotencyKeys).where(lt(idempotencyKeys.createdAt, before));
    },
  };
}

export type PostsRepository = ReturnType<typeof createPostsRepository>;

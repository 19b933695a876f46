import { and, asc, eq, gte, inArray, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.js';
import { posts, shortLinkClicks, shortLinks, shortLinkSettings } from '../../db/schema/index.js';

export type ShortLinkSettingsRow = typeof shortLinkSettings.$inferSelect;
export type ShortLinkRow = typeof shortLinks.$inferSelect;
export type NewShortLinkRow = typeof shortLinks.$inferInsert;

/** Short links, their settings and their clicks: SQL only. */
export function createLinksRepository(db: Db) {
  return {
    async findSettings(organizationId: string, q: Tx | Db = db): Promise<ShortLinkSettingsRow | undefined> {
      const [row] = await q.select().from(shortLinkSettings).where(eq(shortLinkSettings.organizationId, organizationId));
      return row;
    },

    async saveSettings(row: typeof shortLinkSettings.$inferInsert, q: Tx | Db = db): Promise<ShortLinkSettingsRow> {
      const { organizationId: _, ...set } = row;
      const [saved] = await q.insert(shortLinkSettings).values(row).onConflictDoUpdate({ target: shortLinkSettings.organizationId, set }).returning();
      return saved!;
    },

    /** The short links of a post row: the URL as written → the short URL. */
    async findForPost(postId: string, q: Tx | Db = db): Promise<Map<string, string>> {
      const rows = await q.select({ originalUrl: shortLinks.originalUrl, shortUrl: shortLinks.shortUrl }).from(shortLinks).where(eq(shortLinks.postId, postId));
      return new Map(rows.map((r) => [r.originalUrl, r.shortUrl]));
    },

    /** Stores links; one already stored for the same post and URL is kept (a second worker's race). */
    async insertLinks(rows: NewShortLinkRow[], q: Tx | Db = db): Promise<void> {
      if (rows.length === 0) return;
      await q.insert(shortLinks).values(rows).onConflictDoNothing({ target: [shortLinks.postId, shortLinks.originalUrl] });
    },

    /** Which of `codes` are taken already. */
    async takenCodes(codes: string[], q: Tx | Db = db): Promise<Set<string>> {
      if (codes.length === 0) return new Set();
      const rows = await q.select({ code: shortLinks.code }).from(shortLinks).where(inArray(shortLinks.code, codes));
      return new Set(rows.map((r) => r.code!));
    },

    async findByCode(code: string): Promise<{ id: string; targetUrl: string } | undefined> {
      const [row] = await db.select({ id: shortLinks.id, targetUrl: shortLinks.targetUrl }).from(shortLinks).where(eq(shortLinks.code, code));
      return row;
    },

    /** Counts one visit of a built-in link on `day` (UTC date), by a person or a bot. */
    async countClick(linkId: string, day: string, bot: boolean): Promise<void> {
      const human = bot ? 0 : 1;
      await db.transaction(async (tx) => {
        await tx
          .update(shortLinks)
          .set(bot ? { botClicks: sql`${shortLinks.botClicks} + 1` } : { clicks: sql`${shortLinks.clicks} + 1` })
          .where(eq(shortLinks.id, linkId));
        await tx
          .insert(shortLinkClicks)
          .values({ linkId, day, clicks: human, botClicks: 1 - human })
          .onConflictDoUpdate({
            target: [shortLinkClicks.linkId, shortLinkClicks.day],
            set: { clicks: sql`${shortLinkClicks.clicks} + ${human}`, botClicks: sql`${shortLinkClicks.botClicks} + ${1 - human}` },
          });
      });
    },

    /** The links of a post (its row alone, or with its thread's items), oldest first. */
    async listForPost(organizationId: string, postId: string): Promise<ShortLinkRow[]> {
      const ids = db
        .select({ id: posts.id })
        .from(posts)
        .where(and(eq(posts.organizationId, organizationId), sql`(${posts.id} = ${postId} or ${posts.parentPostId} = ${postId})`));
      return db
        .select()
        .from(shortLinks)
        .where(and(eq(shortLinks.organizationId, organizationId), inArray(shortLinks.postId, ids)))
        .orderBy(asc(shortLinks.createdAt), asc(shortLinks.id));
    },

    /** Clicks by people per day since `since` (UTC date) over `linkIds`. */
    async dailyClicks(linkIds: string[], since: string): Promise<{ day: string; clicks: number }[]> {
      if (linkIds.length === 0) return [];
      const rows = await db
        .select({ day: shortLinkClicks.day, clicks: sql<string>`sum(${shortLinkClicks.clicks})` })
        .from(shortLinkClicks)
        .where(and(inArray(shortLinkClicks.linkId, linkIds), gte(shortLinkClicks.day, since)))
        .groupBy(shortLinkClicks.day)
        .orderBy(asc(shortLinkClicks.day));
      return rows.map((r) => ({ day: r.day, clicks: Number(r.clicks) }));
    },

    /** Stores the click totals an outside provider reported. */
    async saveProviderClicks(totals: { id: string; clicks: number }[], at: Date): Promise<void> {
      if (totals.length === 0) return;
      await db.transaction(async (tx) => {
        for (const t of totals) await tx.update(shortLinks).set({ clicks: t.clicks, clicksReadAt: at }).where(eq(shortLinks.id, t.id));
      });
    },

    /** Whether the post (a row of the organisation, not deleted) exists. */
    async postExists(organizationId: string, postId: string): Promise<boolean> {
      const [row] = await db
        .select({ id: posts.id })
        .from(posts)
        .where(and(eq(posts.id, postId), eq(posts.organizationId, organizationId), sql`${posts.deletedAt} is null`));
      return row !== undefined;
    },
  };
}

export type LinksRepository = ReturnType<typeof createLinksRepository>;

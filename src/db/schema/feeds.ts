import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { organizations } from './organizations.js';

/**
 * RSS / Atom / JSON Feed autoposting (issue 30 part 3, src/modules/feeds). A feed posts its new
 * items on its channels with a template. `nextPollAt` is also the lease: a poller takes a feed by
 * moving it forward (`UPDATE … WHERE next_poll_at <= now RETURNING`), so two pollers never poll
 * one feed at once. `etag` / `lastModified` are sent back as conditional request headers.
 */
export const feeds = pgTable(
  'feeds',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    /** the feed's own title (from the last successful parse) */
    title: text('title'),
    integrationIds: jsonb('integration_ids').$type<string[]>().notNull(),
    template: text('template').notNull(),
    /** now | slot | draft */
    mode: text('mode').notNull(),
    pollMinutes: integer('poll_minutes').notNull(),
    /** newest items posted on the first poll (0: the back catalogue is recorded as skipped) */
    backfill: integer('backfill').notNull().default(0),
    etag: text('etag'),
    lastModified: text('last_modified'),
    nextPollAt: timestamp('next_poll_at', { withTimezone: true }).notNull(),
    /** when the last successful poll happened; null until the first one (which skips the back catalogue) */
    lastSuccessAt: timestamp('last_success_at', { withTimezone: true }),
    failures: integer('failures').notNull().default(0),
    lastError: text('last_error'),
    lastErrorAt: timestamp('last_error_at', { withTimezone: true }),
    /** active | failing (set when the organisation was notified; back to active on recovery) */
    status: text('status').notNull().default('active'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
  },
  (t) => [index('feeds_org_idx').on(t.organizationId), index('feeds_due_idx').on(t.nextPollAt).where(sql`${t.deletedAt} IS NULL`)],
);

/**
 * Every item a feed ever showed, once (UNIQUE feed_id, key): inserted in the same transaction as
 * the posts made from it, so an item is posted once ever, even across crashes and racing pollers.
 */
export const feedItems = pgTable(
  'feed_items',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    feedId: uuid('feed_id')
      .notNull()
      .references(() => feeds.id, { onDelete: 'cascade' }),
    /** guid / id, else the link */
    key: text('key').notNull(),
    title: text('title'),
    link: text('link'),
    publishedAt: timestamp('published_at', { withTimezone: true }),
    firstSeenAt: timestamp('first_seen_at', { withTimezone: true }).notNull(),
    /** posted | skipped | draft | failed */
    outcome: text('outcome').notNull(),
    postGroup: text('post_group'),
    /** the posts made from it: one per channel */
    posts: jsonb('posts').$type<{ postId: string; integration: string; group: string }[]>().notNull().default([]),
    error: text('error'),
  },
  (t) => [uniqueIndex('feed_items_feed_key_uq').on(t.feedId, t.key), index('feed_items_feed_seen_idx').on(t.feedId, t.firstSeenAt)],
);

import { boolean, index, integer, jsonb, pgTable, primaryKey, text, timestamp, unique, uuid } from 'drizzle-orm/pg-core';
import { integrations } from './integrations.js';
import { organizations } from './organizations.js';
import { posts } from './posts.js';

/**
 * Evergreen queues (issue 30 part 2): posts recycled into each channel's free posting-time slots.
 * `integrationIds` empty = every channel of the organisation.
 */
export const evergreenQueues = pgTable(
  'evergreen_queues',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    integrationIds: jsonb('integration_ids').$type<string[]>().notNull().default([]),
    order: text('order').$type<'sequence' | 'shuffle'>().notNull().default('sequence'),
    minGapDays: integer('min_gap_days').notNull().default(30),
    horizonDays: integer('horizon_days').notNull().default(7),
    enabled: boolean('enabled').notNull().default(true),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
  },
  (t) => [index('evergreen_queues_org_idx').on(t.organizationId)],
);

/** One post to recycle: its text (and variations of it, rotated), media and per-platform settings. */
export const evergreenItems = pgTable(
  'evergreen_items',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    queueId: uuid('queue_id')
      .notNull()
      .references(() => evergreenQueues.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    content: text('content').notNull(),
    variations: jsonb('variations').$type<string[]>().notNull().default([]),
    media: jsonb('media').$type<{ id: string }[]>().notNull().default([]),
    /** settings per platform identifier */
    settings: jsonb('settings').$type<Record<string, Record<string, unknown>>>().notNull().default({}),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
  },
  (t) => [index('evergreen_items_queue_idx').on(t.queueId, t.position)],
);

/**
 * One fill: an item (variation `variation`; 0 = the item's content) put into a channel's slot as a
 * post. UNIQUE (integration, slot): two fillers racing never fill one slot twice. `outcome` is null
 * until the post ended (`published` / `failed`), read at the next fill.
 */
export const evergreenUses = pgTable(
  'evergreen_uses',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    queueId: uuid('queue_id')
      .notNull()
      .references(() => evergreenQueues.id, { onDelete: 'cascade' }),
    itemId: uuid('item_id')
      .notNull()
      .references(() => evergreenItems.id, { onDelete: 'cascade' }),
    variation: integer('variation').notNull().default(0),
    integrationId: uuid('integration_id')
      .notNull()
      .references(() => integrations.id, { onDelete: 'cascade' }),
    postId: uuid('post_id').references(() => posts.id, { onDelete: 'set null' }),
    slotAt: timestamp('slot_at', { withTimezone: true }).notNull(),
    outcome: text('outcome').$type<'published' | 'failed' | 'cancelled'>(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    unique('evergreen_uses_slot_uq').on(t.integrationId, t.slotAt),
    index('evergreen_uses_item_idx').on(t.itemId, t.integrationId, t.slotAt),
    index('evergreen_uses_queue_idx').on(t.queueId, t.integrationId, t.slotAt),
  ],
);

/** Per queue and channel: consecutive failures of its evergreen posts; paused after too many. */
export const evergreenChannelStates = pgTable(
  'evergreen_channel_states',
  {
    queueId: uuid('queue_id')
      .notNull()
      .references(() => evergreenQueues.id, { onDelete: 'cascade' }),
    integrationId: uuid('integration_id')
      .notNull()
      .references(() => integrations.id, { onDelete: 'cascade' }),
    consecutiveFailures: integer('consecutive_failures').notNull().default(0),
    pausedAt: timestamp('paused_at', { withTimezone: true }),
    pausedReason: text('paused_reason'),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.queueId, t.integrationId] })],
);

import { boolean, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

const timestamps = {
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
};

/**
 * Named plans. A null limit means unlimited. `rate_limit` overrides API_RATE_LIMIT for the
 * organisations on the plan. The self-hosted default plan (`unlimited`) is seeded by migration.
 */
export const plans = pgTable('plans', {
  name: text('name').primaryKey(),
  maxChannels: integer('max_channels'),
  maxScheduledPostsPerMonth: integer('max_scheduled_posts_per_month'),
  maxWebhooks: integer('max_webhooks'),
  videoCreditsPerMonth: integer('video_credits_per_month'),
  rateLimit: integer('rate_limit'),
  ...timestamps,
});

export const organizations = pgTable('organizations', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: text('name').notNull(),
  planName: text('plan_name')
    .notNull()
    .default('unlimited')
    .references(() => plans.name, { onUpdate: 'cascade' }),
  ...timestamps,
  deletedAt: timestamp('deleted_at', { withTimezone: true }),
});

/** API keys: only the SHA-256 of the key is kept, plus a short visible prefix to tell keys apart. */
export const apiKeys = pgTable(
  'api_keys',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    prefix: text('prefix').notNull(),
    keyHash: text('key_hash').notNull(),
    /** a sandbox key (`tdk_test_…`): it sees and touches sandbox channels and their posts only */
    sandbox: boolean('sandbox').notNull().default(false),
    /** the organisation exempts this key from its approval rules (issue 31): it queues posts directly */
    approvalExempt: boolean('approval_exempt').notNull().default(false),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
  },
  (t) => [uniqueIndex('api_keys_key_hash_uq').on(t.keyHash), index('api_keys_org_idx').on(t.organizationId)],
);

import { sql } from 'drizzle-orm';
import { boolean, index, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { organizations } from './organizations.js';

/** Client groups ("customers" in the reference API). */
export const customers = pgTable(
  'customers',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
  },
  (t) => [index('customers_org_idx').on(t.organizationId)],
);

export interface PostingTime {
  /** minutes after 00:00 UTC */
  time: number;
}

/** Channels. Credentials are an AES-256-GCM envelope (see lib/secret-box.ts), never returned. */
export const integrations = pgTable(
  'integrations',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    /** platform identifier, e.g. `x`, `linkedin-page` */
    identifier: text('identifier').notNull(),
    /** the platform's own account id */
    internalId: text('internal_id').notNull(),
    name: text('name').notNull(),
    picture: text('picture'),
    profile: text('profile'),
    disabled: boolean('disabled').notNull().default(false),
    refreshNeeded: boolean('refresh_needed').notNull().default(false),
    /** encrypted JSON of the platform credentials */
    credentials: text('credentials'),
    tokenExpiresAt: timestamp('token_expires_at', { withTimezone: true }),
    /** the platform asked to slow down (429 Retry-After): the publisher leaves this channel alone until then */
    publishBlockedUntil: timestamp('publish_blocked_until', { withTimezone: true }),
    /** instance base URL for instance platforms (mastodon, lemmy, wordpress…) */
    instanceUrl: text('instance_url'),
    postingTimes: jsonb('posting_times')
      .$type<PostingTime[]>()
      .notNull()
      .default(sql`'[{"time":120},{"time":400},{"time":700}]'::jsonb`),
    defaultSettings: jsonb('default_settings').$type<Record<string, unknown>>(),
    /**
     * A sandbox channel (issue 28): the platform's adapter against its simulator inside Tidings,
     * never a real platform. Set when connected, never changed.
     */
    sandbox: boolean('sandbox').notNull().default(false),
    /** the sandbox account's key (its simulator ids derive from it, so a restarted simulator takes the channel back) */
    sandboxKey: text('sandbox_key'),
    customerId: uuid('customer_id').references(() => customers.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
  },
  (t) => [
    index('integrations_org_idx').on(t.organizationId),
    uniqueIndex('integrations_account_uq')
      .on(t.organizationId, t.identifier, t.internalId)
      .where(sql`${t.deletedAt} is null`),
  ],
);

/**
 * A pending OAuth connection: created by `GET /social/{identifier}`, consumed once by the
 * callback within an hour. Binds the platform's redirect to the organisation that asked.
 */
export const connectStates = pgTable('connect_states', {
  /** SHA-256 of the `state` handed to the platform */
  stateHash: text('state_hash').primaryKey(),
  organizationId: uuid('organization_id')
    .notNull()
    .references(() => organizations.id, { onDelete: 'cascade' }),
  identifier: text('identifier').notNull(),
  /** sealed PKCE code verifier */
  codeVerifier: text('code_verifier'),
  /** the channel being reconnected (`?refresh=`) */
  refreshIntegrationId: uuid('refresh_integration_id'),
  instanceUrl: text('instance_url'),
  /**
   * The address of this service the person's browser used to begin (`http://127.0.0.1:3000`),
   * when it is not PUBLIC_URL's: the callback (registered at PUBLIC_URL) sends the browser on to
   * it, so the page that finishes the connection is on the app's own origin and reaches it.
   */
  appOrigin: text('app_origin'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  usedAt: timestamp('used_at', { withTimezone: true }),
});

/** OAuth apps registered dynamically on instances (mastodon): one per platform and instance. */
export const instanceApps = pgTable(
  'instance_apps',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    identifier: text('identifier').notNull(),
    instanceUrl: text('instance_url').notNull(),
    /** sealed JSON of the app's client credentials */
    app: text('app').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('instance_apps_uq').on(t.identifier, t.instanceUrl)],
);

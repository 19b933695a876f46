import { bigint, boolean, date, index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { organizations } from './organizations.js';
import { posts } from './posts.js';

/** Who shortens an organisation's links (issue 32): the service itself, or an outside provider. */
export const SHORT_LINK_PROVIDERS = ['builtin', 'dub', 'shortio', 'kutt'] as const;
export type ShortLinkProvider = (typeof SHORT_LINK_PROVIDERS)[number];

/**
 * An organisation's short-link settings. No row: the built-in shortener and no UTM parameters.
 * `apiKeySealed` is sealed like channel credentials (`lib/secret-box.ts`) and never answered back.
 */
export const shortLinkSettings = pgTable('short_link_settings', {
  organizationId: uuid('organization_id')
    .primaryKey()
    .references(() => organizations.id, { onDelete: 'cascade' }),
  provider: text('provider').$type<ShortLinkProvider>().notNull().default('builtin'),
  apiKeySealed: text('api_key_sealed'),
  /** the provider's short domain (Short.io needs one; Dub and Kutt take their default when null) */
  domain: text('domain'),
  /** where the provider's API is (Kutt is self-hosted; Dub and Short.io have a default) */
  apiUrl: text('api_url'),
  /** query parameters added to every target, e.g. `utm_source={platform}&utm_campaign={group}` (null: none) */
  utmTemplate: text('utm_template'),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * One shortened URL of one post row (a post row is one channel's item), made at publish time and
 * reused by every retry: `(post_id, original_url)` is unique. `code` is the built-in shortener's
 * (`/s/<code>`); an outside provider's link has its own id and URL.
 */
export const shortLinks = pgTable(
  'short_links',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    postId: uuid('post_id')
      .notNull()
      .references(() => posts.id, { onDelete: 'cascade' }),
    provider: text('provider').$type<ShortLinkProvider>().notNull(),
    /** the built-in shortener's code (null for an outside provider's link) */
    code: text('code'),
    /** the provider's id of the link (for its click counts) */
    providerLinkId: text('provider_link_id'),
    shortUrl: text('short_url').notNull(),
    /** the URL as written in the post */
    originalUrl: text('original_url').notNull(),
    /** where the short link leads: the original with the UTM parameters */
    targetUrl: text('target_url').notNull(),
    /** clicks by people (the built-in shortener counts them itself; a provider's are read from it) */
    clicks: bigint('clicks', { mode: 'number' }).notNull().default(0),
    /** fetches by crawlers and link-preview bots, counted apart */
    botClicks: bigint('bot_clicks', { mode: 'number' }).notNull().default(0),
    clicksReadAt: timestamp('clicks_read_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('short_links_post_url_idx').on(t.postId, t.originalUrl),
    uniqueIndex('short_links_code_idx').on(t.code),
    index('short_links_org_idx').on(t.organizationId, t.createdAt),
  ],
);

/** The built-in shortener's clicks per link and day (UTC), for the daily series in post analytics. */
export const shortLinkClicks = pgTable(
  'short_link_clicks',
  {
    linkId: uuid('link_id')
      .notNull()
      .references(() => shortLinks.id, { onDelete: 'cascade' }),
    day: date('day', { mode: 'string' }).notNull(),
    clicks: integer('clicks').notNull().default(0),
    botClicks: integer('bot_clicks').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.linkId, t.day] })],
);

/**
 * An organisation's writing-help model (issue 32): any OpenAI-compatible chat-completions endpoint
 * (OpenAI, Ollama, LM Studio, vLLM…). No row: the feature is off and nothing is sent anywhere.
 */
export const aiSettings = pgTable('ai_settings', {
  organizationId: uuid('organization_id')
    .primaryKey()
    .references(() => organizations.id, { onDelete: 'cascade' }),
  /** e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1` */
  baseUrl: text('base_url').notNull(),
  model: text('model').notNull(),
  /** sealed like channel credentials; null for endpoints without a key (Ollama) */
  apiKeySealed: text('api_key_sealed'),
  /** the model takes images (alt text) */
  vision: boolean('vision').notNull().default(false),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

import { sql } from 'drizzle-orm';
import {
  type AnyPgColumn,
  bigint,
  boolean,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgEnum,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { postSeries } from './series.js';
import { integrations } from './integrations.js';
import { organizations } from './organizations.js';

export const postStateEnum = pgEnum('post_state', ['DRAFT', 'QUEUE', 'PUBLISHED', 'ERROR']);
export const APPROVAL_STATUSES = ['pending_approval', 'changes_requested', 'approved'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];
export const creationMethodEnum = pgEnum('creation_method', ['API', 'CLI', 'WEB', 'MCP', 'UNKNOWN', 'IMPORT', 'FEED', 'SERIES', 'EVERGREEN']);

/** A media item of a post as stored on the row (the media library row holds the rest). */
export interface PostImage {
  id: string;
  path: string;
  type?: 'image' | 'video';
  mimeType?: string;
  alt?: string | null;
  thumbnail?: string | null;
}

/**
 * Posts. The first item of a thread has `parent_post_id` null and `position` 0; its replies or
 * comments point at it with increasing `position` and their own `delay` (minutes).
 */
export const posts = pgTable(
  'posts',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    integrationId: uuid('integration_id')
      .notNull()
      .references(() => integrations.id, { onDelete: 'cascade' }),
    group: text('group').notNull(),
    state: postStateEnum('state').notNull().default('QUEUE'),
    publishDate: timestamp('publish_date', { withTimezone: true }).notNull(),
    content: text('content').notNull().default(''),
    image: jsonb('image').$type<PostImage[]>().notNull().default(sql`'[]'::jsonb`),
    settings: jsonb('settings').$type<Record<string, unknown>>().notNull().default(sql`'{}'::jsonb`),
    tags: jsonb('tags').$type<unknown[]>().notNull().default(sql`'[]'::jsonb`),
    shortLink: boolean('short_link').notNull().default(false),
    parentPostId: uuid('parent_post_id').references((): AnyPgColumn => posts.id, { onDelete: 'cascade' }),
    position: integer('position').notNull().default(0),
    delay: integer('delay').notNull().default(0),
    releaseId: text('release_id'),
    releaseUrl: text('release_url'),
    error: text('error'),
    creationMethod: creationMethodEnum('creation_method').notNull().default('API'),
    attempts: integer('attempts').notNull().default(0),
    lastAttemptAt: timestamp('last_attempt_at', { withTimezone: true }),
    /**
     * The publisher's record of this row (engines/publishing/publisher.ts). `dueAt`: when its current job
     * runs; `publishJobId`: that pg-boss job; `leaseOwner`: the worker holding the job;
     * `attemptState`: `sending` from just before the platform request leaves until its outcome is
     * stored (found after a crash = outcome unknown, reconciled), `pending` while the platform
     * processes asynchronously (`pendingToken` polls it).
     */
    dueAt: timestamp('due_at', { withTimezone: true }),
    publishJobId: uuid('publish_job_id'),
    leaseOwner: text('lease_owner'),
    attemptState: text('attempt_state').$type<'sending' | 'pending'>(),
    pendingToken: text('pending_token'),
    /** when the pending publish last moved on (entered `pending`, or its token changed): polls back off from it and give up `pendingMaxMs` after it */
    pendingProgressAt: timestamp('pending_progress_at', { withTimezone: true }),
    publishedAt: timestamp('published_at', { withTimezone: true }),
    /**
     * The overdue-post watchdog (engines/publishing/overdue-watchdog.ts): the `publish_date` it
     * reported this row overdue for (`post.overdue` and a notification), so each due time is
     * reported once; a new date (rescheduled) arms it again.
     */
    overdueReportedFor: timestamp('overdue_reported_for', { withTimezone: true }),
    /** incremented on every change that must invalidate an already-enqueued publish job */
    version: bigint('version', { mode: 'number' }).notNull().default(1),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
    /** the series this post is an occurrence of (modules/series), and which occurrence (0-based) */
    seriesId: uuid('series_id').references((): AnyPgColumn => postSeries.id, { onDelete: 'set null' }),
    seriesIndex: integer('series_index'),
    /**
     * Approval (issue 31, on a thread's first row): `pending_approval` and `changes_requested` keep
     * the row a DRAFT until an approver approves it, which queues it (`approved`); null when it
     * never went through approval. `approvalRuleId`: the rule that asked for it (null: asked by hand
     * or by the contributor role). `approvalRequestedBy`: the actor who submitted it (notified of the
     * decision). `approvalReportedFor`: the publish date a still-pending post was reported missed for.
     */
    approval: text('approval').$type<ApprovalStatus>(),
    approvalRuleId: uuid('approval_rule_id'),
    approvalRequestedBy: jsonb('approval_requested_by').$type<{ kind: string; id: string | null; name: string }>(),
    approvalRequestedAt: timestamp('approval_requested_at', { withTimezone: true }),
    approvalDecidedBy: text('approval_decided_by'),
    approvalDecidedAt: timestamp('approval_decided_at', { withTimezone: true }),
    approvalReportedFor: timestamp('approval_reported_for', { withTimezone: true }),
  },
  (t) => [
    // The backstop against creating an occurrence twice (the series row's lock is the first guard).
    uniqueIndex('posts_series_occurrence_idx').on(t.seriesId, t.seriesIndex, t.integrationId, t.position),
    index('posts_org_publish_idx').on(t.organizationId, t.publishDate),
    index('posts_group_idx').on(t.organizationId, t.group),
    index('posts_parent_idx').on(t.parentPostId),
    index('posts_due_idx').on(t.state, t.publishDate).where(sql`${t.deletedAt} is null`),
    index('posts_approval_idx').on(t.organizationId, t.approval).where(sql`${t.approval} in ('pending_approval', 'changes_requested') and ${t.deletedAt} is null`),
    index('posts_lease_idx').on(t.leaseOwner).where(sql`${t.leaseOwner} is not null`),
  ],
);

export const mediaTypeEnum = pgEnum('media_type', ['image', 'video', 'audio']);

export const media = pgTable(
  'media',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    originalName: text('original_name'),
    /** URL the service serves the file at */
    path: text('path').notNull(),
    /** key of the object in the storage driver */
    storageKey: text('storage_key').notNull(),
    thumbnail: text('thumbnail'),
    alt: text('alt'),
    type: mediaTypeEnum('type').notNull(),
    mimeType: text('mime_type').notNull(),
    size: bigint('size', { mode: 'number' }).notNull(),
    width: integer('width'),
    height: integer('height'),
    /** seconds (from the video's container; fractional) */
    duration: doublePrecision('duration'),
    /** RFC 6381 codec strings of a video's tracks, comma-separated (`avc1.64001f,mp4a.40.2`) */
    codecs: text('codecs'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
  },
  (t) => [index('media_org_created_idx').on(t.organizationId, t.createdAt), index('media_storage_key_idx').on(t.storageKey)],
);

/**
 * Storage keys no live media row claims: recorded before an upload starts (removed in the
 * transaction that inserts its media row) and with a soft delete (removed once the file is gone).
 * A key still here after a crash tells the storage janitor which object to remove; objects this
 * database never recorded are never touched.
 */
export const mediaUnclaimed = pgTable('media_unclaimed', {
  storageKey: text('storage_key').primaryKey(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * `Idempotency-Key` of `POST /posts`: the first response per organisation and key, replayed for
 * 24 h to a request with the same body (hash), 409 to a different one.
 */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    requestHash: text('request_hash').notNull(),
    statusCode: integer('status_code').notNull(),
    response: jsonb('response').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.key] }), index('idempotency_keys_created_idx').on(t.createdAt)],
);

/**
 * The outbox of domain events (`post.published`, `post.failed`, `integration.refresh_needed`…),
 * written in the same transaction as the change they report; the webhooks issue delivers them.
 */
export const events = pgTable(
  'events',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    type: text('type').notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  },
  (t) => [index('events_org_created_idx').on(t.organizationId, t.createdAt)],
);

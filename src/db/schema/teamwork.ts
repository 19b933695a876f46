import { sql } from 'drizzle-orm';
import { boolean, index, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { users } from './accounts.js';
import { organizations } from './organizations.js';

/**
 * Who did something (issue 31): a person in the app, an API key, an OAuth app, an assistant over
 * MCP, a client through a preview link, or the service itself. `name` is kept as it was then, so
 * the record still reads right after the person, key or app is gone.
 */
export const ACTOR_KINDS = ['user', 'api_key', 'oauth_app', 'mcp', 'preview_link', 'system'] as const;
export type ActorKind = (typeof ACTOR_KINDS)[number];

/**
 * Internal comments on a post group (what the calendar shows as one post across channels), or on
 * one of its posts (`post_id`). Never published anywhere. `mentions` holds the user ids @mentioned
 * (each notified once, when the comment is written or edited to add them).
 */
export const postComments = pgTable(
  'post_comments',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    /** the post group (`posts.group`) the thread belongs to */
    group: text('group').notNull(),
    /** one post of the group the comment is about (null: the group as a whole) */
    postId: uuid('post_id'),
    authorKind: text('author_kind').$type<ActorKind>().notNull(),
    /** the user, key, app or link id (null for the system) */
    authorId: text('author_id'),
    authorName: text('author_name').notNull(),
    body: text('body').notNull(),
    mentions: jsonb('mentions').$type<string[]>().notNull().default([]),
    resolvedAt: timestamp('resolved_at', { withTimezone: true }),
    resolvedByName: text('resolved_by_name'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
  },
  (t) => [index('post_comments_group_idx').on(t.organizationId, t.group, t.createdAt)],
);

/**
 * Saved post templates shared by the organisation (the reference's "sets" map onto these): `body`
 * is a partial create-posts body — thread items with text (placeholders such as `{{title}}`),
 * media, per-channel settings, tags.
 */
export const postTemplates = pgTable(
  'post_templates',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    body: jsonb('body').$type<Record<string, unknown>>().notNull(),
    createdByUserId: uuid('created_by_user_id').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('post_templates_name_uq').on(t.organizationId, sql`lower(${t.name})`)],
);

/**
 * Signatures shared by the organisation: text appended to the end of a post's first item,
 * automatically (`auto_add`, for the channels in `integration_ids`, all when empty) or on demand.
 */
export const signatures = pgTable(
  'signatures',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    content: text('content').notNull(),
    autoAdd: boolean('auto_add').notNull().default(false),
    /** the channels it is added to automatically (empty: every channel) */
    integrationIds: jsonb('integration_ids').$type<string[]>().notNull().default([]),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('signatures_name_uq').on(t.organizationId, sql`lower(${t.name})`)],
);

/**
 * The activity log (`GET /activity`): who did what to which post, channel, key, webhook or member,
 * and when. `details` never holds a secret (tokens, keys, signing secrets, passwords). Kept at least
 * 90 days (`ACTIVITY_RETENTION_DAYS`).
 */
export const activityLog = pgTable(
  'activity_log',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
    actorKind: text('actor_kind').$type<ActorKind>().notNull(),
    actorId: text('actor_id'),
    actorName: text('actor_name').notNull(),
    /** e.g. `post.created`, `post.approved`, `channel.disconnected`, `api_key.created` */
    action: text('action').notNull(),
    /** `post`, `group`, `channel`, `api_key`, `webhook`, `member`, `invitation`, `template`, `signature`, `comment`, … */
    targetKind: text('target_kind').notNull(),
    targetId: text('target_id'),
    targetName: text('target_name'),
    details: jsonb('details').$type<Record<string, unknown>>().notNull().default({}),
  },
  (t) => [
    index('activity_log_org_at_idx').on(t.organizationId, t.at),
    index('activity_log_target_idx').on(t.organizationId, t.targetKind, t.targetId),
  ],
);

/**
 * Approval rules (issue 31): posts on their scope (the whole organisation, one channel, or one
 * client group's channels) need an approver's yes before they are queued. The most specific rule
 * of a channel decides (channel, then client group, then organisation). Approvers: members with one
 * of `approver_roles` or named in `approver_user_ids`. `reapprove_on_edit`: a change by anyone
 * else to an approved post sends it back for approval.
 */
export const approvalRules = pgTable(
  'approval_rules',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    scope: text('scope').$type<'organization' | 'channel' | 'customer'>().notNull(),
    /** the channel or client group (null for the organisation) */
    scopeId: uuid('scope_id'),
    approverRoles: jsonb('approver_roles').$type<string[]>().notNull().default(['owner', 'admin']),
    approverUserIds: jsonb('approver_user_ids').$type<string[]>().notNull().default([]),
    reapproveOnEdit: boolean('reapprove_on_edit').notNull().default(true),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('approval_rules_scope_uq').on(t.organizationId, t.scope, sql`coalesce(${t.scopeId}, '00000000-0000-0000-0000-000000000000'::uuid)`)],
);

/**
 * Client preview links (issue 31): a link to one post group or a date range that shows the posts
 * without an account and, when `allow_approval`, lets its holder approve or request changes. Only
 * the token's hash is kept; `password_hash` (scrypt) when the link asks for a password. Expired or
 * revoked links show nothing.
 */
export const previewLinks = pgTable(
  'preview_links',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull(),
    /** what it shows: `group` (one post group) or `range` (posts between `from_date` and `to_date`, of `customer_id`'s channels when set) */
    kind: text('kind').$type<'group' | 'range'>().notNull(),
    group: text('group'),
    fromDate: timestamp('from_date', { withTimezone: true }),
    toDate: timestamp('to_date', { withTimezone: true }),
    customerId: uuid('customer_id'),
    title: text('title').notNull().default(''),
    allowApproval: boolean('allow_approval').notNull().default(false),
    passwordHash: text('password_hash'),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    createdByName: text('created_by_name').notNull(),
    lastViewedAt: timestamp('last_viewed_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('preview_links_token_uq').on(t.tokenHash), index('preview_links_org_idx').on(t.organizationId, t.createdAt)],
);

export type ApprovalRuleRow = typeof approvalRules.$inferSelect;
export type PreviewLinkRow = typeof previewLinks.$inferSelect;
export type PostCommentRow = typeof postComments.$inferSelect;
export type PostTemplateRow = typeof postTemplates.$inferSelect;
export type SignatureRow = typeof signatures.$inferSelect;
export type ActivityRow = typeof activityLog.$inferSelect;

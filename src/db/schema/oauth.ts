import { index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { users } from './accounts.js';
import { organizations } from './organizations.js';

/**
 * Apps that may ask for access (issue 15, OAuth 2.1). `origin`: `organization` (registered by an
 * organisation in its developer settings), `dynamic` (RFC 7591 registration, belongs to nobody)
 * or `builtin` (first-party clients the service itself knows, such as the Postiz CLI's device
 * login). Public clients have no secret; a confidential client's secret is kept as SHA-256 only.
 */
export const oauthClients = pgTable(
  'oauth_clients',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    clientId: text('client_id').notNull(),
    organizationId: uuid('organization_id').references(() => organizations.id, { onDelete: 'cascade' }),
    origin: text('origin').$type<'organization' | 'dynamic' | 'builtin'>().notNull(),
    kind: text('kind').$type<'confidential' | 'public'>().notNull(),
    name: text('name').notNull(),
    logoUrl: text('logo_url'),
    clientUri: text('client_uri'),
    redirectUris: jsonb('redirect_uris').$type<string[]>().notNull().default([]),
    secretHash: text('secret_hash'),
    secretPrefix: text('secret_prefix'),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    /** last time a person approved it (dynamic clients never approved are pruned after 30 days) */
    lastApprovedAt: timestamp('last_approved_at', { withTimezone: true }),
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
  },
  (t) => [uniqueIndex('oauth_clients_client_id_uq').on(t.clientId), index('oauth_clients_org_idx').on(t.organizationId)],
);

/**
 * One approval: a person let a client act for an organisation. Every token issued from it
 * (the access tokens, the chain of rotated refresh tokens) belongs to it, so revoking the grant
 * (the user on the approved-apps page, a replayed refresh token or code, the member leaving, the
 * app deleted) revokes them all in one statement.
 */
export const oauthGrants = pgTable(
  'oauth_grants',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    clientId: uuid('client_id')
      .notNull()
      .references(() => oauthClients.id, { onDelete: 'cascade' }),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    scope: text('scope').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    revokedReason: text('revoked_reason'),
  },
  (t) => [index('oauth_grants_user_idx').on(t.userId), index('oauth_grants_org_idx').on(t.organizationId), index('oauth_grants_client_idx').on(t.clientId)],
);

/** Authorisation codes: single use, 10 minutes, bound to client, redirect URI and PKCE challenge. */
export const oauthCodes = pgTable(
  'oauth_codes',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    codeHash: text('code_hash').notNull(),
    clientId: uuid('client_id')
      .notNull()
      .references(() => oauthClients.id, { onDelete: 'cascade' }),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    redirectUri: text('redirect_uri').notNull(),
    codeChallenge: text('code_challenge').notNull(),
    scope: text('scope').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    /** the grant its exchange created: a replayed code revokes it */
    grantId: uuid('grant_id').references(() => oauthGrants.id, { onDelete: 'set null' }),
  },
  (t) => [uniqueIndex('oauth_codes_hash_uq').on(t.codeHash), index('oauth_codes_expires_idx').on(t.expiresAt)],
);

/**
 * Access tokens (`pos_…`), stored as SHA-256. API.md §2: they resolve to the granting
 * organisation. `expiresAt` null = valid until revoked (the default: existing clients never refresh).
 */
export const oauthAccessTokens = pgTable(
  'oauth_access_tokens',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull(),
    prefix: text('prefix').notNull(),
    clientId: text('client_id'),
    grantId: uuid('grant_id').references(() => oauthGrants.id, { onDelete: 'cascade' }),
    scope: text('scope').notNull().default(''),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('oauth_access_tokens_hash_uq').on(t.tokenHash),
    index('oauth_access_tokens_org_idx').on(t.organizationId),
    index('oauth_access_tokens_grant_idx').on(t.grantId),
  ],
);

/**
 * Refresh tokens: each is used once and replaced (rotation). Presenting one already used is
 * the sign of a stolen token, and revokes its whole grant (reuse detection, OAuth 2.1 §4.3.1).
 */
export const oauthRefreshTokens = pgTable(
  'oauth_refresh_tokens',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tokenHash: text('token_hash').notNull(),
    grantId: uuid('grant_id')
      .notNull()
      .references(() => oauthGrants.id, { onDelete: 'cascade' }),
    /** the access token issued with it; refreshing retires that one */
    accessTokenId: uuid('access_token_id').references(() => oauthAccessTokens.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
  },
  (t) => [uniqueIndex('oauth_refresh_tokens_hash_uq').on(t.tokenHash), index('oauth_refresh_tokens_grant_idx').on(t.grantId)],
);

/**
 * Device authorisation (RFC 8628, and the Postiz CLI's `/device/code` protocol): a device code
 * the command-line client polls with (kept as SHA-256) and a short user code a person types on
 * the verification page. `status`: pending → approved | denied → consumed (the token was handed
 * out, once).
 */
export const deviceAuthorizations = pgTable(
  'device_authorizations',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    deviceCodeHash: text('device_code_hash').notNull(),
    userCode: text('user_code').notNull(),
    clientId: uuid('client_id')
      .notNull()
      .references(() => oauthClients.id, { onDelete: 'cascade' }),
    scope: text('scope').notNull(),
    status: text('status').$type<'pending' | 'approved' | 'denied' | 'consumed'>().notNull().default('pending'),
    intervalSeconds: integer('interval_seconds').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    lastPolledAt: timestamp('last_polled_at', { withTimezone: true }),
    userId: uuid('user_id').references(() => users.id, { onDelete: 'cascade' }),
    organizationId: uuid('organization_id').references(() => organizations.id, { onDelete: 'cascade' }),
    grantId: uuid('grant_id').references(() => oauthGrants.id, { onDelete: 'set null' }),
    decidedAt: timestamp('decided_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('device_authorizations_device_code_uq').on(t.deviceCodeHash),
    uniqueIndex('device_authorizations_user_code_uq').on(t.userCode),
    index('device_authorizations_expires_idx').on(t.expiresAt),
  ],
);

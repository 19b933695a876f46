import { sql } from 'drizzle-orm';
import { bigserial, boolean, index, integer, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { organizations } from './organizations.js';
import { events } from './posts.js';

/**
 * Webhooks of an organisation (API.md §5, issue 14). `events` and `integrationIds` are filters;
 * empty means every event type / every channel. The signing secrets are AES-256-GCM envelopes
 * (lib/secret-box.ts), never returned after creation or rotation; after a rotation the previous
 * secret keeps signing alongside the new one until `previousSecretExpiresAt`.
 */
export const webhooks = pgTable(
  'webhooks',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    url: text('url').notNull(),
    events: jsonb('events').$type<string[]>().notNull().default([]),
    integrationIds: jsonb('integration_ids').$type<string[]>().notNull().default([]),
    enabled: boolean('enabled').notNull().default(true),
    /** why the service disabled it (410 Gone, failing for 24 h); null when enabled or disabled by the user */
    disabledReason: text('disabled_reason'),
    secret: text('secret').notNull(),
    previousSecret: text('previous_secret'),
    previousSecretExpiresAt: timestamp('previous_secret_expires_at', { withTimezone: true }),
    /** first failed delivery since the last success; deliveries failing for 24 h disable the webhook */
    failingSince: timestamp('failing_since', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
  },
  (t) => [index('webhooks_org_idx').on(t.organizationId)],
);

/**
 * One event to one webhook: made in the transaction that writes the event (so none is lost or
 * invented), retried until delivered or given up. Its `id` is the `webhook-id` sent on every
 * attempt, so receivers can de-duplicate. `orderingKey` (the root post of `post.*` events) keeps
 * one post's events in order per webhook: a delivery waits while an earlier one (`seq`) with the
 * same key is still pending.
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    seq: bigserial('seq', { mode: 'number' }).notNull(),
    webhookId: uuid('webhook_id')
      .notNull()
      .references(() => webhooks.id, { onDelete: 'cascade' }),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    eventId: uuid('event_id')
      .notNull()
      .references(() => events.id, { onDelete: 'cascade' }),
    eventType: text('event_type').notNull(),
    orderingKey: text('ordering_key'),
    /** `pending` (to be sent, or waiting for an earlier one), `delivered`, `failed` (given up), `cancelled` (webhook disabled or deleted) */
    state: text('state').$type<'pending' | 'delivered' | 'failed' | 'cancelled'>().notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }),
    /** the worker sending it now, until `leaseUntil`; a lease that ran out (a dead worker) is taken over, same `id` */
    leaseOwner: text('lease_owner'),
    leaseUntil: timestamp('lease_until', { withTimezone: true }),
    lastStatus: integer('last_status'),
    lastError: text('last_error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    deliveredAt: timestamp('delivered_at', { withTimezone: true }),
  },
  (t) => [
    index('webhook_deliveries_webhook_idx').on(t.webhookId, t.seq),
    index('webhook_deliveries_order_idx').on(t.webhookId, t.orderingKey, t.seq),
    index('webhook_deliveries_pending_idx').on(t.state, t.nextAttemptAt),
    // The lease looks at each webhook's own due deliveries, oldest first, and the loop at the
    // earliest running lease: without these, both read every pending row of a backlog each time.
    index('webhook_deliveries_due_idx').on(t.webhookId, t.nextAttemptAt, t.seq).where(sql`state = 'pending'`),
    index('webhook_deliveries_lease_idx').on(t.leaseUntil).where(sql`state = 'pending' AND lease_until IS NOT NULL`),
  ],
);

/** The delivery log: one row per attempt, newest first in `GET /webhooks/{id}/deliveries`. */
export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    seq: bigserial('seq', { mode: 'number' }).notNull(),
    deliveryId: uuid('delivery_id')
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: 'cascade' }),
    webhookId: uuid('webhook_id')
      .notNull()
      .references(() => webhooks.id, { onDelete: 'cascade' }),
    attempt: integer('attempt').notNull(),
    /** HTTP status, null when no answer came (timeout, connection refused, refused address) */
    statusCode: integer('status_code'),
    durationMs: integer('duration_ms').notNull(),
    /** the first 1,000 characters of the answer's body */
    responseSnippet: text('response_snippet'),
    error: text('error'),
    at: timestamp('at', { withTimezone: true }).notNull(),
    /** when the next attempt is due; null when delivered or given up */
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }),
  },
  (t) => [index('webhook_attempts_webhook_idx').on(t.webhookId, t.seq)],
);

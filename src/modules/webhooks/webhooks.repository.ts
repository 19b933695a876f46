import { and, asc, count, eq, inArray, isNull, sql, TransactionRollbackError } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.js';
import { integrations, webhookDeliveries, webhooks } from '../../db/schema/index.js';
import { emitEvent, WEBHOOK_CHANNEL } from '../../core/events/events.js';

export type WebhookRow = typeof webhooks.$inferSelect;
export type WebhookPatch = Partial<Pick<WebhookRow, 'name' | 'url' | 'events' | 'integrationIds' | 'enabled' | 'disabledReason' | 'failingSince'>>;

export interface DeliveryLogRow {
  deliveryId: string;
  eventId: string;
  eventType: string;
  attempt: number;
  statusCode: number | null;
  durationMs: number | null;
  responseSnippet: string | null;
  error: string | null;
  at: Date;
  nextAttemptAt: Date | null;
  state: 'pending' | 'delivered' | 'failed' | 'cancelled';
}

function rowsOf<T>(result: unknown): T[] {
  const r = result as { rows?: T[] } | T[];
  return Array.isArray(r) ? r : (r.rows ?? []);
}

const asDate = (v: unknown): Date => (v instanceof Date ? v : new Date(String(v)));
const asDateOrNull = (v: unknown): Date | null => (v === null || v === undefined ? null : asDate(v));
const asIntOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

export function createWebhooksRepository(db: Db) {
  const owned = (organizationId: string, id: string) =>
    and(eq(webhooks.id, id), eq(webhooks.organizationId, organizationId), isNull(webhooks.deletedAt));

  /** Pending deliveries of the webhook are not to be sent any more (disabled or deleted). */
  const cancelPending = (tx: Tx, webhookId: string, at: Date) =>
    tx
      .update(webhookDeliveries)
      .set({ state: 'cancelled', nextAttemptAt: null, leaseOwner: null, leaseUntil: null, updatedAt: at })
      .where(and(eq(webhookDeliveries.webhookId, webhookId), eq(webhookDeliveries.state, 'pending')));

  return {
    async listWebhooks(organizationId: string) {
      return db
        .select()
        .from(webhooks)
        .where(and(eq(webhooks.organizationId, organizationId), isNull(webhooks.deletedAt)))
        .orderBy(asc(webhooks.createdAt), asc(webhooks.id));
    },

    async findWebhook(organizationId: string, id: string) {
      const [row] = await db.select().from(webhooks).where(owned(organizationId, id));
      return row;
    },

    async countLiveWebhooks(organizationId: string) {
      const [row] = await db
        .select({ n: count() })
        .from(webhooks)
        .where(and(eq(webhooks.organizationId, organizationId), isNull(webhooks.deletedAt)));
      return row?.n ?? 0;
    },

    /** Which of `ids` are live channels of the organisation. */
    async findLiveIntegrationIds(organizationId: string, ids: string[]) {
      if (ids.length === 0) return new Set<string>();
      const rows = await db
        .select({ id: integrations.id })
        .from(integrations)
        .where(and(eq(integrations.organizationId, organizationId), inArray(integrations.id, ids), isNull(integrations.deletedAt)));
      return new Set(rows.map((r) => r.id));
    },

    async insertWebhook(values: typeof webhooks.$inferInsert) {
      const [row] = await db.insert(webhooks).values(values).returning();
      return row!;
    },

    /** Updates the webhook; `cancel` also cancels its pending deliveries, in the same transaction. */
    async updateWebhook(organizationId: string, id: string, patch: WebhookPatch, at: Date, opts: { cancel: boolean }) {
      return db.transaction(async (tx) => {
        const [row] = await tx
          .update(webhooks)
          .set({ ...patch, updatedAt: at })
          .where(owned(organizationId, id))
          .returning();
        if (row && opts.cancel) await cancelPending(tx, row.id, at);
        return row;
      });
    },

    /** Soft-deletes the webhook and cancels its pending deliveries, atomically. */
    async deleteWebhook(organizationId: string, id: string, at: Date) {
      return db.transaction(async (tx) => {
        const [row] = await tx
          .update(webhooks)
          .set({ deletedAt: at, updatedAt: at })
          .where(owned(organizationId, id))
          .returning({ id: webhooks.id });
        if (row) await cancelPending(tx, row.id, at);
        return row;
      });
    },

    /**
     * The current secret becomes the previous one (kept until `previousUntil`) and `sealed` the
     * current one, in one statement: the right side of SET reads the row as it was, so two
     * rotations at once cannot lose a secret that was in use.
     */
    async rotateSecret(organizationId: string, id: string, sealed: string, previousUntil: Date, at: Date) {
      const [row] = await db
        .update(webhooks)
        .set({ previousSecret: sql`${webhooks.secret}`, previousSecretExpiresAt: previousUntil, secret: sealed, updatedAt: at })
        .where(owned(organizationId, id))
        .returning();
      return row;
    },

    /** Emits `webhook.test` to this webhook only; returns the event and its one delivery (undefined when the webhook is gone). */
    async emitTest(organizationId: string, webhook: { id: string; name: string }, at: Date) {
      return db.transaction(async (tx) => {
        const eventId = await emitEvent(
          tx,
          organizationId,
          'webhook.test',
          { webhook: { id: webhook.id, name: webhook.name }, message: 'This is a test event from Tidings' },
          at,
          { webhookId: webhook.id },
        );
        const [delivery] = await tx
          .select({ id: webhookDeliveries.id })
          .from(webhookDeliveries)
          .where(and(eq(webhookDeliveries.eventId, eventId), eq(webhookDeliveries.webhookId, webhook.id)));
        // None when the webhook was deleted since it was read: nothing is written then.
        if (!delivery) tx.rollback();
        return { eventId, deliveryId: delivery!.id };
      }).catch((e: unknown) => {
        if (e instanceof TransactionRollbackError) return undefined;
        throw e;
      });
    },

    /**
     * Puts a delivery of the organisation's (live) webhook back on the queue: pending, due now,
     * lease cleared, and wakes the delivery workers, in one transaction. Its attempt count and
     * log are kept (the next attempt continues the numbering).
     */
    async resendDelivery(organizationId: string, webhookId: string, deliveryId: string, at: Date) {
      return db.transaction(async (tx) => {
        const [row] = await tx
          .update(webhookDeliveries)
          .set({ state: 'pending', nextAttemptAt: at, leaseOwner: null, leaseUntil: null, updatedAt: at })
          .where(
            and(
              eq(webhookDeliveries.id, deliveryId),
              eq(webhookDeliveries.webhookId, webhookId),
              eq(webhookDeliveries.organizationId, organizationId),
              sql`EXISTS (SELECT 1 FROM webhooks w WHERE w.id = ${webhookDeliveries.webhookId} AND w.organization_id = ${organizationId} AND w.deleted_at IS NULL)`,
            ),
          )
          .returning({ id: webhookDeliveries.id });
        if (row) await tx.execute(sql`select pg_notify(${WEBHOOK_CHANNEL}, ${organizationId})`);
        return row;
      });
    },

    /**
     * The delivery log of one webhook, newest first: every attempt (with its delivery's state
     * now), and one entry (attempt 0) for each delivery that has no attempt yet, so every
     * delivery shows up. Ties (same instant) are broken by the delivery's queue order, then attempt.
     */
    async listDeliveryLog(webhookId: string, offset: number, limit: number) {
      const entries = sql`
        SELECT a.delivery_id, d.event_id, d.event_type, a.attempt, a.status_code, a.duration_ms, a.response_snippet,
               a.error, a.at, a.next_attempt_at, d.state, d.seq AS delivery_seq
        FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
        WHERE a.webhook_id = ${webhookId}
        UNION ALL
        SELECT d.id, d.event_id, d.event_type, 0, NULL, NULL, NULL, NULL, d.created_at, d.next_attempt_at, d.state, d.seq
        FROM webhook_deliveries d
        WHERE d.webhook_id = ${webhookId} AND NOT EXISTS (SELECT 1 FROM webhook_attempts a WHERE a.delivery_id = d.id)`;
      const [page, total] = await Promise.all([
        db.execute(sql`SELECT * FROM (${entries}) e ORDER BY e.at DESC, e.delivery_seq DESC, e.attempt DESC LIMIT ${limit} OFFSET ${offset}`),
        db.execute(sql`SELECT count(*)::int AS n FROM (${entries}) e`),
      ]);
      const rows: DeliveryLogRow[] = rowsOf<Record<string, unknown>>(page).map((r) => ({
        deliveryId: String(r.delivery_id),
        eventId: String(r.event_id),
        eventType: String(r.event_type),
        attempt: Number(r.attempt),
        statusCode: asIntOrNull(r.status_code),
        durationMs: asIntOrNull(r.duration_ms),
        responseSnippet: (r.response_snippet as string | null) ?? null,
        error: (r.error as string | null) ?? null,
        at: asDate(r.at),
        nextAttemptAt: asDateOrNull(r.next_attempt_at),
        state: r.state as DeliveryLogRow['state'],
      }));
      const n = rowsOf<{ n: unknown }>(total)[0]?.n;
      return { rows, total: Number(n ?? 0) };
    },
  };
}

export type WebhooksRepository = ReturnType<typeof createWebhooksRepository>;

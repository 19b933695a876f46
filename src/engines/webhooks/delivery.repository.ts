import { and, eq, inArray, ne, sql } from 'drizzle-orm';
import type { Database, Tx } from '../../db/client.js';
import { events, webhookAttempts, webhookDeliveries, webhooks } from '../../db/schema/index.js';

export type DeliveryRow = typeof webhookDeliveries.$inferSelect;
export type WebhookRow = typeof webhooks.$inferSelect;
export type EventRow = typeof events.$inferSelect;
export type DeliveryChange = Partial<typeof webhookDeliveries.$inferInsert>;

/** One recorded success, as `recordSuccesses` writes it (times as ISO strings). */
export interface SuccessRow {
  id: string;
  webhook_id: string;
  attempt: number;
  status: number | null;
  duration_ms: number;
  snippet: string | null;
  at: string;
  done: string;
}

/**
 * The webhook delivery engine's SQL: leasing due deliveries, loading them, recording attempts and
 * outcomes, disabling a webhook. Methods that take `tx` run in the caller's transaction
 * (`transaction`); the others are one statement each.
 */
export function createDeliveryRepository(database: Database) {
  const db = database.db;

  return {
    transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
      return db.transaction(fn);
    },

    /**
     * Leases up to `limit` due deliveries within the per-webhook limits (one statement).
     * `busyJson` maps webhook ids to sends in flight in this process; `deadBefore`: a lease owner
     * whose heartbeat is older than this is dead (null: only run-out leases are taken).
     */
    async lease(q: { now: string; workerId: string; leaseUntil: string; busyJson: string; perWebhook: number; limit: number; deadBefore: string | null }): Promise<{ id: string; webhookId: string }[]> {
      // Each webhook with due work and a free slot is looked at on its own (LATERAL), taking at
      // most its free slots from its own due rows in order (webhook_deliveries_due_idx). So the cost
      // of a lease grows with the number of webhooks that have work, not with the size of a
      // backlog: a webhook whose slots are full is skipped without reading its pending rows.
      // Candidates are locked with SKIP LOCKED (another worker's are left to it); a delivery waits
      // while an earlier one of the same post (ordering_key) to the same webhook is pending.
      const { rows } = await database.sql.executeSql(
        `WITH hooks AS (
         SELECT w.id, $5 - coalesce(($4::jsonb ->> w.id::text)::int, 0) AS free
           FROM webhooks w
          WHERE coalesce(($4::jsonb ->> w.id::text)::int, 0) < $5
            AND EXISTS (SELECT 1 FROM webhook_deliveries x
                         WHERE x.webhook_id = w.id AND x.state = 'pending' AND x.next_attempt_at <= $1::timestamptz)
       ), candidates AS (
         SELECT c.id, c.webhook_id, c.next_attempt_at, c.seq
           FROM hooks h CROSS JOIN LATERAL (
             SELECT d.id, d.webhook_id, d.next_attempt_at, d.seq
               FROM webhook_deliveries d
              WHERE d.webhook_id = h.id AND d.state = 'pending' AND d.next_attempt_at <= $1::timestamptz
                AND (d.lease_until IS NULL OR d.lease_until < $1::timestamptz
                     OR ($7::timestamptz IS NOT NULL AND d.lease_owner <> $2 AND NOT EXISTS (
                          SELECT 1 FROM worker_heartbeats hb WHERE hb.worker_id = d.lease_owner AND hb.beat_at > $7::timestamptz)))
                AND (d.ordering_key IS NULL OR NOT EXISTS (
                      SELECT 1 FROM webhook_deliveries e
                       WHERE e.webhook_id = d.webhook_id AND e.ordering_key = d.ordering_key
                         AND e.seq < d.seq AND e.state = 'pending'))
              ORDER BY d.next_attempt_at, d.seq
              LIMIT h.free
              FOR UPDATE OF d SKIP LOCKED
           ) c
       ), chosen AS (
         SELECT id FROM candidates ORDER BY next_attempt_at, seq LIMIT $6
       )
       UPDATE webhook_deliveries w SET lease_owner = $2, lease_until = $3::timestamptz, updated_at = $1::timestamptz
         FROM chosen WHERE w.id = chosen.id
       RETURNING w.id, w.webhook_id`,
        [q.now, q.workerId, q.leaseUntil, q.busyJson, q.perWebhook, q.limit, q.deadBefore],
      );
      return rows.map((r) => ({ id: String(r.id), webhookId: String(r.webhook_id) }));
    },

    /** The next time (epoch ms) after `now` a pending delivery falls due or a lease runs out. */
    async nextDue(now: string): Promise<number | undefined> {
      const { rows } = await database.sql.executeSql(
        `SELECT extract(epoch from least(
          (SELECT min(next_attempt_at) FROM webhook_deliveries WHERE state = 'pending' AND next_attempt_at > $1::timestamptz),
          (SELECT min(lease_until) FROM webhook_deliveries WHERE state = 'pending' AND lease_until >= $1::timestamptz)
        )) * 1000 AS at`,
        [now],
      );
      const at = rows[0]?.at;
      return at === null || at === undefined ? undefined : Number(at);
    },

    /** The deliveries with their events and webhooks, in one query. */
    async load(ids: string[]) {
      const rows =
        ids.length === 0
          ? []
          : await db
              .select({ delivery: webhookDeliveries, event: events, webhook: webhooks })
              .from(webhookDeliveries)
              .innerJoin(events, eq(events.id, webhookDeliveries.eventId))
              .innerJoin(webhooks, eq(webhooks.id, webhookDeliveries.webhookId))
              .where(inArray(webhookDeliveries.id, ids));
      return new Map(rows.map((r) => [r.delivery.id, r]));
    },

    /** Applies `set` to a delivery still pending and leased by `workerId`, and ends the lease. */
    async releaseAs(tx: Tx, deliveryId: string, workerId: string, set: DeliveryChange) {
      await tx
        .update(webhookDeliveries)
        .set({ ...set, leaseOwner: null, leaseUntil: null })
        .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.leaseOwner, workerId), eq(webhookDeliveries.state, 'pending')));
    },

    /** Disables an enabled webhook; false when it was not enabled (nothing changed). */
    async disableWebhook(tx: Tx, webhookId: string, reason: string, at: Date): Promise<boolean> {
      const changed = await tx
        .update(webhooks)
        .set({ enabled: false, disabledReason: reason, updatedAt: at })
        .where(and(eq(webhooks.id, webhookId), eq(webhooks.enabled, true)))
        .returning({ id: webhooks.id });
      return changed.length > 0;
    },

    /** Cancels the webhook's pending deliveries but `except`. */
    async cancelPending(tx: Tx, webhookId: string, except: string, at: Date) {
      await tx
        .update(webhookDeliveries)
        .set({ state: 'cancelled', nextAttemptAt: null, leaseOwner: null, leaseUntil: null, updatedAt: at })
        .where(and(eq(webhookDeliveries.webhookId, webhookId), eq(webhookDeliveries.state, 'pending'), ne(webhookDeliveries.id, except)));
    },

    /**
     * One statement (so one commit): the deliveries still leased by `workerId` are marked
     * delivered (one taken over meanwhile is the other worker's to record), their attempts
     * logged, and the webhooks' failing streaks ended (no lock on the webhook rows).
     */
    async recordSuccesses(batch: SuccessRow[], workerId: string) {
      const rows = JSON.stringify(batch);
      const fields = 'id uuid, webhook_id uuid, attempt int, status int, duration_ms int, snippet text, at timestamptz, done timestamptz';
      await database.sql.executeSql(
        `WITH v AS (
               SELECT * FROM jsonb_to_recordset($1::jsonb) AS v(${fields})
             ), released AS (
               UPDATE webhook_deliveries d
                  SET state = 'delivered', delivered_at = v.done, attempts = v.attempt, last_status = v.status, last_error = NULL,
                      updated_at = v.done, next_attempt_at = NULL, lease_owner = NULL, lease_until = NULL
                 FROM v
                WHERE d.id = v.id AND d.lease_owner = $2 AND d.state = 'pending'
                RETURNING d.id
             ), logged AS (
               INSERT INTO webhook_attempts (delivery_id, webhook_id, attempt, status_code, duration_ms, response_snippet, error, at, next_attempt_at)
               SELECT v.id, v.webhook_id, v.attempt, v.status, v.duration_ms, v.snippet, NULL, v.at, NULL
                 FROM v JOIN released r ON r.id = v.id
                ORDER BY v.done
               RETURNING 1
             ), healed AS (
               UPDATE webhooks SET failing_since = NULL
                WHERE id IN (SELECT webhook_id FROM v) AND failing_since IS NOT NULL
               RETURNING 1
             )
             SELECT (SELECT count(*) FROM logged) AS logged`,
        [rows, workerId],
      );
    },

    /** The webhook row, locked for the rest of the transaction. */
    async lockWebhook(tx: Tx, webhookId: string): Promise<WebhookRow | undefined> {
      const [current] = await tx.select().from(webhooks).where(eq(webhooks.id, webhookId)).for('update');
      return current;
    },

    async markFailingSince(tx: Tx, webhookId: string, at: Date) {
      await tx.update(webhooks).set({ failingSince: at }).where(eq(webhooks.id, webhookId));
    },

    async insertAttempt(tx: Tx, row: typeof webhookAttempts.$inferInsert) {
      await tx.insert(webhookAttempts).values(row);
    },

    /** Ends every pending delivery's lease; returns how many were leased. */
    async releaseAllLeases(): Promise<number> {
      const released = await db
        .update(webhookDeliveries)
        .set({ leaseOwner: null, leaseUntil: null })
        .where(and(eq(webhookDeliveries.state, 'pending'), sql`${webhookDeliveries.leaseOwner} IS NOT NULL`))
        .returning({ id: webhookDeliveries.id });
      return released.length;
    },
  };
}

export type DeliveryRepository = ReturnType<typeof createDeliveryRepository>;

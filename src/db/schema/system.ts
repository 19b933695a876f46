import { bigint, bigserial, index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/** One row per worker process; `/readyz` reads the newest beat. */
export const workerHeartbeats = pgTable('worker_heartbeats', {
  workerId: text('worker_id').primaryKey(),
  role: text('role').notNull(),
  beatAt: timestamp('beat_at', { withTimezone: true }).notNull(),
});

/**
 * The sliding log of the rate limiter in PostgreSQL mode: one row per admitted request. The
 * `tidings_rate_take` function (custom migration) admits and records atomically.
 */
export const rateLimitHits = pgTable(
  'rate_limit_hits',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    key: text('key').notNull(),
    /** epoch milliseconds from the service clock */
    at: bigint('at', { mode: 'number' }).notNull(),
  },
  (t) => [index('rate_limit_hits_key_at_idx').on(t.key, t.at)],
);

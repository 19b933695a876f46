import { bigint, bigserial, index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/** One row per worker process; `/readyz` reads the newest beat. */
export const workerHeartbeats = pgTable('worker_heartbeats', {
  workerId: text('worker_id').primaryKey(),
  role: text('role').notNull(),
  beatAt: timestamp('beat_at', { withTimezone: true }).notNull(),
});

/**
 * The sliding log of the rate limiter in PostgreSQL mode: one row per admitted request. The
 * `tidings_rate_take` function (custom migration) admits and records atomically, keeping the count
 * of live rows in `rate_limit_counters` so a large limit does not mean counting a large log.
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

/** Per-key count of the rows in `rate_limit_hits`; its row is also the per-key lock. */
export const rateLimitCounters = pgTable('rate_limit_counters', {
  key: text('key').primaryKey(),
  n: bigint('n', { mode: 'number' }).notNull().default(0),
});

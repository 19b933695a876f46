import { sql } from 'drizzle-orm';
import { check, index, integer, jsonb, pgTable, real, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { organizations } from './organizations.js';
import { media } from './posts.js';

/**
 * Video generations (issue 19). The row is the truth; a pg-boss job on the `video` queue only says
 * "look at this row". A worker claims a `queued` row (status `running`, `attempts` + 1, its worker id
 * in `lease_owner`); a row whose lease owner stopped beating is queued again while attempts are left,
 * else failed. The credits of a generation are reserved with the row (`credit_state` `reserved`),
 * become `spent` in the transaction that inserts the finished media item, and `refunded` on failure;
 * `credit_period` (UTC `YYYY-MM`) is the month they count against.
 */
export const videoJobs = pgTable(
  'video_jobs',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    provider: text('provider').notNull(),
    output: text('output').notNull(),
    params: jsonb('params').notNull(),
    status: text('status').notNull().default('queued'),
    progress: real('progress').notNull().default(0),
    stage: text('stage'),
    attempts: integer('attempts').notNull().default(0),
    maxAttempts: integer('max_attempts').notNull().default(2),
    credits: integer('credits').notNull(),
    creditPeriod: text('credit_period').notNull(),
    creditState: text('credit_state').notNull().default('reserved'),
    leaseOwner: text('lease_owner'),
    /** the pg-boss job of the current attempt (recovery re-sends one for a queued row whose job is gone) */
    bossJobId: uuid('boss_job_id'),
    /** what the provider saved to resume after a crash (a remote task id) */
    checkpoint: jsonb('checkpoint'),
    mediaId: uuid('media_id').references(() => media.id, { onDelete: 'set null' }),
    error: text('error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    startedAt: timestamp('started_at', { withTimezone: true }),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    index('video_jobs_org_created_idx').on(t.organizationId, t.createdAt),
    index('video_jobs_org_period_idx').on(t.organizationId, t.creditPeriod),
    index('video_jobs_running_idx').on(t.status).where(sql`${t.status} in ('queued', 'running')`),
    check('video_jobs_status_ck', sql`${t.status} in ('queued', 'running', 'succeeded', 'failed')`),
    check('video_jobs_credit_state_ck', sql`${t.creditState} in ('reserved', 'spent', 'refunded')`),
  ],
);

/** Extra video credits an administrator gave an organisation for one month (`tidings credits grant`). */
export const videoCreditGrants = pgTable(
  'video_credit_grants',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    period: text('period').notNull(),
    credits: integer('credits').notNull(),
    note: text('note'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  },
  (t) => [index('video_credit_grants_org_period_idx').on(t.organizationId, t.period)],
);

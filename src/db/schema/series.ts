import { index, integer, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { organizations } from './organizations.js';

/**
 * Recurring posts (issue 30, part 1): a calendar rule and the create-posts body (without `date`)
 * each occurrence is made from. Occurrences are real posts (`posts.series_id`, `posts.series_index`)
 * created ahead for a rolling horizon; `next_index` is the first occurrence not created yet, read
 * and advanced under this row's lock, so no occurrence is created twice nor re-created after an edit.
 */
export const postSeries = pgTable(
  'post_series',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    /** the rule as the API takes it (modules/series/series.schemas.ts SeriesRule) */
    rule: jsonb('rule').$type<Record<string, unknown>>().notNull(),
    /** the POST /posts body without `date` (and without `type`) */
    template: jsonb('template').$type<Record<string, unknown>>().notNull(),
    /** `schedule` or `draft`: the state each occurrence is created in */
    type: text('type').$type<'schedule' | 'draft'>().notNull(),
    /** how far ahead occurrences are created (days) */
    horizonDays: integer('horizon_days').notNull().default(30),
    /** occurrences up to this instant exist (null: none yet) */
    materializedThrough: timestamp('materialized_through', { withTimezone: true }),
    /** the index (0-based) of the first occurrence not created yet */
    nextIndex: integer('next_index').notNull().default(0),
    /** the rule has no occurrence left to create */
    completedAt: timestamp('completed_at', { withTimezone: true }),
    /** why an occurrence could not be created (the series stops until edited); null when healthy */
    brokenReason: text('broken_reason'),
    brokenAt: timestamp('broken_at', { withTimezone: true }),
    /** the series this one continues ("this and following" edit) */
    previousSeriesId: uuid('previous_series_id'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
  },
  (t) => [index('post_series_org_idx').on(t.organizationId, t.createdAt), index('post_series_extend_idx').on(t.materializedThrough)],
);

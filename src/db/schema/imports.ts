import { index, integer, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { organizations } from './organizations.js';

/**
 * Bulk imports of posts (issue 30 part 4, `POST /imports`). Every import that creates posts has a
 * row (the `import.completed` event names it); a large file is kept in `source` until a background
 * run has processed it (then cleared). `problems` holds the row/column list when it failed.
 */
export const imports = pgTable(
  'imports',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    /** pending → running → completed | failed */
    status: text('status').$type<'pending' | 'running' | 'completed' | 'failed'>().notNull(),
    /** `csv` or `json` */
    format: text('format').notNull(),
    totalRows: integer('total_rows').notNull(),
    doneRows: integer('done_rows').notNull().default(0),
    createdGroups: integer('created_groups').notNull().default(0),
    createdPosts: integer('created_posts').notNull().default(0),
    problems: jsonb('problems').$type<{ row: number | null; column: string | null; message: string }[]>().notNull().default([]),
    /** the parsed rows of a background import, cleared once it ran */
    source: jsonb('source').$type<Record<string, string>[] | null>(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    completedAt: timestamp('completed_at', { withTimezone: true }),
  },
  (t) => [index('imports_org_idx').on(t.organizationId, t.createdAt)],
);

export type ImportRow = typeof imports.$inferSelect;

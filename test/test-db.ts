import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import pg from 'pg';
import { openPglite, openPostgres, type Database } from '../src/db/client.js';

export type TestDbKind = 'pglite' | 'postgres';

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export function testDbKind(): TestDbKind {
  return process.env.TEST_DB === 'postgres' ? 'postgres' : 'pglite';
}

export function urlForDatabase(name: string): string {
  const u = new URL(TEST_DATABASE_URL);
  u.pathname = `/${name}`;
  return u.toString();
}

export async function withAdminClient<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

export interface TestDatabase {
  database: Database;
  /** postgres only: the URL of this test's own database (for child processes) */
  url?: string;
  drop(): Promise<void>;
}

/**
 * A fresh, migrated database for one test file: PGlite restored from the snapshot the global setup
 * made, or a new PostgreSQL database copied from the migrated template.
 */
export async function openTestDatabase(setup: { snapshotPath?: string; templateDb?: string }): Promise<TestDatabase> {
  if (testDbKind() === 'pglite') {
    const snapshot = new Blob([await readFile(setup.snapshotPath!)]);
    const database = await openPglite({ loadDataDir: snapshot });
    return { database, drop: () => database.close() };
  }
  const name = `tidings_t_${randomBytes(5).toString('hex')}`;
  await withAdminClient((c) => c.query(`CREATE DATABASE ${name} TEMPLATE ${setup.templateDb!}`));
  const url = urlForDatabase(name);
  const database = await openPostgres({ url, poolSize: 10 });
  return {
    database,
    url,
    async drop() {
      await database.close();
      await withAdminClient((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

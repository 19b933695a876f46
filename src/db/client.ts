import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import * as schema from './schema/index.js';
import { lockDataDir, type DataDirLock } from './data-dir-lock.js';
import { createPgliteTap, createPgPoolTap, type StatementRecording } from './statement-probe.js';

export type { StatementRecording } from './statement-probe.js';

export type Schema = typeof schema;
/** The drizzle handle, identical in both modes. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
/** A drizzle transaction (same API as Db). */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

export interface SqlRows {
  rows: Record<string, unknown>[];
}

/** Raw SQL executor, as pg-boss's `db` option wants it. */
export interface SqlExecutor {
  /**
   * `name`: a statement sent very often with the same text (the rate limiter's take) is prepared
   * once per PostgreSQL connection under this name; PGlite ignores it.
   */
  executeSql(text: string, values?: unknown[], name?: string): Promise<SqlRows>;
}

export interface Database {
  kind: 'pglite' | 'postgres';
  db: Db;
  /** Runs raw SQL outside any transaction (pg-boss, rate limiter, health checks). */
  sql: SqlExecutor;
  /** Runs raw SQL inside a drizzle transaction, so jobs can be enqueued with the row they are about. */
  sqlIn(tx: Tx): SqlExecutor;
  migrate(): Promise<void>;
  close(): Promise<void>;
  /** PGlite only: a gzip snapshot of the whole data folder (test fixtures, backups). */
  dumpDataDir?(): Promise<Blob>;
  /**
   * LISTEN on `channel`: `onNotify` runs for each NOTIFY committed by any process on this database.
   * Returns the function that stops listening.
   */
  listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>>;
  /**
   * Tests (statement budgets): records every statement this process sends from now on — drizzle's,
   * pg-boss's, the rate limiter's — until `stop()`. The driver is only wrapped on the first call,
   * so a process that never records pays nothing. LISTEN connections are not counted.
   */
  recordStatements(): StatementRecording;
}

// Resolves to src/db/migrations from both src/db/client.ts (tsx) and dist/db/client.js (built).
export const MIGRATIONS_DIR = fileURLToPath(new URL('../../src/db/migrations', import.meta.url));

/** What a drizzle transaction keeps internally: the driver connection it runs on. */
interface TxInternals {
  session: { client: { query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }> } };
}

function txExecutor(tx: Tx): SqlExecutor {
  // drizzle 0.45 keeps the transaction's connection (pg PoolClient or PGlite Transaction) at
  // tx.session.client; both expose query(text, values). Pinned version; covered by jobs tests.
  const client = (tx as unknown as TxInternals).session.client;
  return {
    async executeSql(text, values) {
      const res = await client.query(text, values ?? []);
      return { rows: res.rows as Record<string, unknown>[] };
    },
  };
}

export interface PgliteOptions {
  /** Folder of the data; undefined = in memory (tests). */
  dataDir?: string;
  /** A gzip dump to start from (tests: faster than initdb). */
  loadDataDir?: Blob;
  /**
   * PostgreSQL's shared_buffers. PGlite runs PostgreSQL inside this process, so these buffers are
   * this process's memory: 16MB instead of the default 128MB measured ~150 MB less RSS.
   */
  sharedBuffers?: string;
}

export async function openPglite(opts: PgliteOptions): Promise<Database> {
  let lock: DataDirLock | undefined;
  let dataPath: string | undefined;
  if (opts.dataDir) {
    const root = resolve(opts.dataDir);
    lock = lockDataDir(root);
    dataPath = join(root, 'pg');
    mkdirSync(dirname(dataPath), { recursive: true });
  }
  let client: PGlite;
  try {
    client = new PGlite({
      dataDir: dataPath,
      loadDataDir: opts.loadDataDir,
      ...(opts.sharedBuffers ? { postgresqlconf: [`shared_buffers = ${opts.sharedBuffers}`] } : {}),
    });
    await client.waitReady;
  } catch (e) {
    lock?.release();
    throw e;
  }
  const db = drizzlePglite(client, { schema }) as unknown as Db;
  const tap = createPgliteTap(client);
  return {
    kind: 'pglite',
    recordStatements: () => tap.record(),
    db,
    sql: {
      async executeSql(text, values) {
        if (values && values.length > 0) {
          const res = await client.query(text, values);
          return { rows: res.rows as Record<string, unknown>[] };
        }
        // Without parameters pg-boss sends multi-statement blocks (its own migrations), which
        // only the simple-query path accepts.
        try {
          const results = await client.exec(text);
          return { rows: results.flatMap((r) => r.rows as Record<string, unknown>[]) };
        } catch (e) {
          await client.exec('ROLLBACK').catch(() => undefined);
          throw e;
        }
      },
    },
    sqlIn: txExecutor,
    async migrate() {
      await migratePglite(drizzlePglite(client, { schema }), { migrationsFolder: MIGRATIONS_DIR });
    },
    async dumpDataDir() {
      return (await client.dumpDataDir('gzip'));
    },
    async listen(channel, onNotify) {
      const stop = await client.listen(channel, (payload) => onNotify(payload));
      return async () => {
        await stop().catch(() => undefined);
      };
    },
    async close() {
      try {
        await client.close();
      } finally {
        lock?.release();
      }
    },
  };
}

export interface PostgresOptions {
  url: string;
  poolSize: number;
}

// Arbitrary constant: serialises migrations when several processes start at once.
const MIGRATION_LOCK_ID = 0x7469_6469;

export async function openPostgres(opts: PostgresOptions): Promise<Database> {
  const pool = new pg.Pool({ connectionString: opts.url, max: opts.poolSize });
  // A dropped idle connection must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  // Nor one that is checked out (a transaction between statements, pg-boss at work): pg-pool
  // listens for errors on idle clients only, and node-postgres emits 'error' on a client whose
  // connection ends under it, which without a listener ends the process (every process did when
  // PostgreSQL restarted: test/e2e/faults.test.ts). The statement in flight is rejected all the
  // same, and the pool discards the broken client when it is released.
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
  });
  const probe = await pool.connect();
  probe.release();
  const db = drizzlePg(pool, { schema }) as unknown as Db;
  const tap = createPgPoolTap(pool);
  return {
    kind: 'postgres',
    recordStatements: () => tap.record(),
    db,
    sql: {
      async executeSql(text, values, name) {
        const res = name ? await pool.query({ name, text, values }) : await pool.query(text, values);
        return { rows: res.rows as Record<string, unknown>[] };
      },
    },
    sqlIn: txExecutor,
    async migrate() {
      const conn = await pool.connect();
      try {
        await conn.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
        try {
          await migratePg(drizzlePg(conn, { schema }), { migrationsFolder: MIGRATIONS_DIR });
        } finally {
          await conn.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]);
        }
      } finally {
        conn.release();
      }
    },
    async listen(channel, onNotify) {
      // A dedicated connection (a pooled one would be handed to other queries); reconnects if
      // dropped, trying again (1 s, doubling to 10 s) for as long as the database is away — a
      // single try would leave the process deaf to NOTIFY after an outage longer than a second.
      let client: pg.Client | undefined;
      let stopped = false;
      const reconnect = (delayMs: number) => {
        if (stopped) return;
        setTimeout(() => {
          if (stopped) return;
          connect().catch(() => reconnect(Math.min(delayMs * 2, 10_000)));
        }, delayMs).unref();
      };
      const connect = async () => {
        const c = new pg.Client({ connectionString: opts.url });
        c.on('notification', (n) => onNotify(n.payload ?? ''));
        c.on('error', () => {
          c.end().catch(() => undefined);
          // A failure while connecting is the caller's to retry; a connection lost later is ours.
          if (client === c) {
            client = undefined;
            reconnect(1000);
          }
        });
        try {
          await c.connect();
          await c.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
        } catch (e) {
          c.end().catch(() => undefined);
          throw e;
        }
        if (stopped) {
          await c.end().catch(() => undefined);
          return;
        }
        client = c;
        // A reconnect may have missed notifications: tell the listener to look again.
        onNotify('');
      };
      await connect();
      return async () => {
        stopped = true;
        await client?.end().catch(() => undefined);
      };
    },
    async close() {
      await pool.end();
    },
  };
}

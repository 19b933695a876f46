import type { PGlite, Transaction } from '@electric-sql/pglite';
import type pg from 'pg';

/**
 * What a test sees of the statements this process sends to its database (test/budget holds a
 * budget of statements and transactions per operation). Every statement is a round trip on
 * PostgreSQL; BEGIN and COMMIT are statements too.
 */
export interface StatementRecording {
  /** The statement texts sent since the recording started, in the order they were sent. */
  readonly statements: readonly string[];
  /** Transactions begun among them: each BEGIN (pg-boss's multi-statement blocks included). */
  readonly transactions: number;
  /** Stops recording (the texts stay readable). */
  stop(): void;
}

const BEGIN = /^\s*(begin|start\s+transaction)\b/i;

/**
 * The recordings running on one database. The driver is wrapped on the first `record()` only, so
 * a process that never records (production) runs the driver's own methods untouched; after that,
 * a wrapped call costs one check while no recording runs.
 */
export interface StatementTap {
  record(): StatementRecording;
}

interface Recorder {
  statements: string[];
  transactions: number;
}

function createTap(install: (note: (text: string) => void, active: () => boolean) => void): StatementTap {
  const recorders = new Set<Recorder>();
  let installed = false;
  const note = (text: string) => {
    const begins = BEGIN.test(text);
    for (const r of recorders) {
      r.statements.push(text);
      if (begins) r.transactions++;
    }
  };
  return {
    record() {
      if (!installed) {
        install(note, () => recorders.size > 0);
        installed = true;
      }
      const r: Recorder = { statements: [], transactions: 0 };
      recorders.add(r);
      return {
        get statements() {
          return r.statements;
        },
        get transactions() {
          return r.transactions;
        },
        stop: () => void recorders.delete(r),
      };
    },
  };
}

function textOf(query: unknown): string {
  if (typeof query === 'string') return query;
  const text = (query as { text?: unknown } | null)?.text;
  return typeof text === 'string' ? text : String(query);
}

const WRAPPED = Symbol('statement tap');

/**
 * node-postgres: every statement of the pool — drizzle's, pg-boss's (it runs on this pool through
 * `Database.sql`), the rate limiter's — goes through `query` of a client checked out of the pool
 * (`pool.query` checks one out too), so each client is wrapped when it is first handed out while
 * recording is on.
 */
export function createPgPoolTap(pool: pg.Pool): StatementTap {
  return createTap((note, active) => {
    pool.on('acquire', (client) => {
      const c = client as pg.PoolClient & { [WRAPPED]?: true };
      if (c[WRAPPED] || !active()) return;
      c[WRAPPED] = true;
      const query = c.query.bind(c) as (...args: unknown[]) => unknown;
      (c as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
        if (active()) note(textOf(args[0]));
        return query(...args);
      };
    });
  });
}

/**
 * PGlite: `query` and `exec` of the instance, and `transaction`, whose BEGIN and COMMIT PGlite
 * sends itself and whose statements go through the transaction object it hands to the callback
 * (drizzle's transactions and `Database.sqlIn(tx)` use that object). A transaction counts when it
 * began while recording was on.
 */
export function createPgliteTap(client: PGlite): StatementTap {
  return createTap((note, active) => {
    const query = client.query.bind(client);
    const exec = client.exec.bind(client);
    const transaction = client.transaction.bind(client);
    client.query = ((text: string, ...rest: unknown[]) => {
      if (active()) note(text);
      return (query as (...a: unknown[]) => unknown)(text, ...rest);
    }) as PGlite['query'];
    client.exec = ((text: string, ...rest: unknown[]) => {
      if (active()) note(text);
      return (exec as (...a: unknown[]) => unknown)(text, ...rest);
    }) as PGlite['exec'];
    client.transaction = (async (fn: (tx: Transaction) => Promise<unknown>) => {
      if (!active()) return transaction(fn);
      note('BEGIN');
      let rolledBack = false;
      try {
        const result = await transaction((tx) => {
          // The transaction object keeps its own state (`closed`, `listen`): inherit it, wrap the senders.
          const wrapped = Object.create(tx) as Transaction;
          wrapped.query = ((text: string, ...rest: unknown[]) => {
            note(text);
            return (tx.query as (...a: unknown[]) => unknown)(text, ...rest);
          }) as Transaction['query'];
          wrapped.exec = ((text: string, ...rest: unknown[]) => {
            note(text);
            return (tx.exec as (...a: unknown[]) => unknown)(text, ...rest);
          }) as Transaction['exec'];
          wrapped.sql = ((strings: TemplateStringsArray, ...params: unknown[]) => {
            note(strings.join('$?'));
            return tx.sql(strings, ...params);
          }) as Transaction['sql'];
          wrapped.rollback = () => {
            note('ROLLBACK');
            rolledBack = true;
            return tx.rollback();
          };
          return fn(wrapped);
        });
        if (!rolledBack) note('COMMIT');
        return result;
      } catch (e) {
        if (!rolledBack) note('ROLLBACK');
        throw e;
      }
    }) as PGlite['transaction'];
  });
}

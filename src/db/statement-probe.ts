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
  /**
   * Transactions the database committed, as PostgreSQL counts them (`pg_stat_database.xact_commit`):
   * each BEGIN … COMMIT, and each statement sent outside one (its own transaction, reads too).
   */
  readonly commits: number;
  /**
   * Statements sent while recording that have not been answered yet: work an operation leaves
   * running (a loop's next look) is over once this is 0 and nothing more is sent.
   */
  readonly inFlight: number;
  /** Stops recording (the texts stay readable). */
  stop(): void;
}

const BEGIN = /^\s*(begin|start\s+transaction)\b/i;
const COMMIT = /^\s*(commit|end)\b/i;
const ROLLBACK = /^\s*rollback\b(?!\s+to\b)/i;
/** A whole transaction in one text (pg-boss's blocks: `BEGIN; …; COMMIT;`). */
const WHOLE = /\bcommit\s*;?\s*$/i;

/**
 * Follows one connection's transaction state, so that each statement can be told apart: inside
 * a BEGIN … COMMIT block or a transaction of its own.
 */
function createBlockTracker() {
  let inBlock = false;
  return (text: string): boolean => {
    const inside = inBlock;
    if (BEGIN.test(text) && !WHOLE.test(text)) inBlock = true;
    else if (COMMIT.test(text) || ROLLBACK.test(text)) inBlock = false;
    return inside;
  };
}

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
  commits: number;
}

/**
 * Notes one statement sent; `inBlock`: it was sent inside a BEGIN … COMMIT block. Answers the
 * function to call once the database has answered it.
 */
type Note = (text: string, inBlock: boolean) => () => void;

/** Calls `done` when `result` (a promise, usually) settles; answers `result` untouched. */
function whenAnswered<T>(result: T, done: () => void): T {
  if (result && typeof (result as { then?: unknown }).then === 'function') (result as unknown as PromiseLike<unknown>).then(done, done);
  else done();
  return result;
}

function createTap(install: (note: Note, active: () => boolean) => void): StatementTap {
  const recorders = new Set<Recorder>();
  let installed = false;
  let inFlight = 0;
  const note: Note = (text, inBlock) => {
    const begins = BEGIN.test(text);
    // A block commits at its COMMIT; a statement outside any block is a transaction of its own.
    const commits = inBlock ? COMMIT.test(text) : !ROLLBACK.test(text) && (!begins || WHOLE.test(text));
    for (const r of recorders) {
      r.statements.push(text);
      if (begins) r.transactions++;
      if (commits) r.commits++;
    }
    inFlight++;
    let answered = false;
    return () => {
      if (answered) return;
      answered = true;
      inFlight--;
    };
  };
  return {
    record() {
      if (!installed) {
        install(note, () => recorders.size > 0);
        installed = true;
      }
      const r: Recorder = { statements: [], transactions: 0, commits: 0 };
      recorders.add(r);
      return {
        get statements() {
          return r.statements;
        },
        get transactions() {
          return r.transactions;
        },
        get commits() {
          return r.commits;
        },
        get inFlight() {
          return inFlight;
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
      const track = createBlockTracker();
      (c as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
        const text = textOf(args[0]);
        const inBlock = track(text);
        if (!active()) return query(...args);
        const done = note(text, inBlock);
        // pool.query hands its callback on; drizzle awaits the promise.
        const last = args.length - 1;
        const cb = args[last];
        if (typeof cb === 'function') {
          args[last] = (...answer: unknown[]) => {
            done();
            return (cb as (...a: unknown[]) => unknown)(...answer);
          };
          return query(...args);
        }
        return whenAnswered(query(...args), done);
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
    // Outside `transaction`, PGlite runs nothing while a transaction is open: these are outside blocks.
    client.query = ((text: string, ...rest: unknown[]) => {
      const sent = (query as (...a: unknown[]) => unknown)(text, ...rest);
      return active() ? whenAnswered(sent, note(text, false)) : sent;
    }) as PGlite['query'];
    client.exec = ((text: string, ...rest: unknown[]) => {
      const sent = (exec as (...a: unknown[]) => unknown)(text, ...rest);
      return active() ? whenAnswered(sent, note(text, false)) : sent;
    }) as PGlite['exec'];
    client.transaction = (async (fn: (tx: Transaction) => Promise<unknown>) => {
      if (!active()) return transaction(fn);
      const begun = note('BEGIN', false);
      let rolledBack = false;
      try {
        const result = await transaction((tx) => {
          begun();
          // The transaction object keeps its own state (`closed`, `listen`): inherit it, wrap the senders.
          const wrapped = Object.create(tx) as Transaction;
          wrapped.query = ((text: string, ...rest: unknown[]) =>
            whenAnswered((tx.query as (...a: unknown[]) => unknown)(text, ...rest), note(text, true))) as Transaction['query'];
          wrapped.exec = ((text: string, ...rest: unknown[]) =>
            whenAnswered((tx.exec as (...a: unknown[]) => unknown)(text, ...rest), note(text, true))) as Transaction['exec'];
          wrapped.sql = ((strings: TemplateStringsArray, ...params: unknown[]) =>
            whenAnswered(tx.sql(strings, ...params), note(strings.join('$?'), true))) as Transaction['sql'];
          wrapped.rollback = () => {
            rolledBack = true;
            return whenAnswered(tx.rollback(), note('ROLLBACK', true));
          };
          return fn(wrapped);
        });
        // PGlite has sent its COMMIT (or ROLLBACK) and had the answer by now.
        if (!rolledBack) note('COMMIT', true)();
        return result;
      } catch (e) {
        begun();
        if (!rolledBack) note('ROLLBACK', true)();
        throw e;
      }
    }) as PGlite['transaction'];
  });
}

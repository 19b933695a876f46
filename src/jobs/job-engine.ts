import PgBoss from 'pg-boss';
import type { Database, Tx } from '../db/client.js';

export type JobRole = 'api' | 'worker' | 'all';

export interface Logger {
  error(obj: unknown, msg?: string): void;
  warn(obj: unknown, msg?: string): void;
}

/**
 * pg-boss on the service's own database, in both modes: on PGlite through the raw-SQL adapter of
 * db/client.ts (one connection, so pg-boss must never open its own), on PostgreSQL through the same
 * pool. Only worker processes run pg-boss's maintenance and schedule loops.
 */
export interface JobEngine {
  readonly boss: PgBoss;
  start(): Promise<void>;
  stop(): Promise<void>;
  ensureQueue(name: string, options?: PgBoss.Queue): Promise<void>;
  /**
   * Enqueue inside `tx`: the job exists if and only if the transaction commits. On PGlite, sending
   * without `tx` while a transaction is open would wait on that transaction forever — always pass
   * the transaction you are in.
   */
  send(name: string, data: object, options?: PgBoss.SendOptions, tx?: Tx): Promise<string | null>;
}

const QUEUE_CREATE_ATTEMPTS = 6;

export function createJobEngine(database: Database, opts: { role: JobRole; logger: Logger; pollingIntervalSeconds?: number }): JobEngine {
  const isWorker = opts.role !== 'api';
  const boss = new PgBoss({
    db: database.sql,
    schema: 'pgboss',
    migrate: true,
    supervise: isWorker,
    schedule: isWorker,
  });
  boss.on('error', (err) => opts.logger.error({ err }, 'job engine error'));
  const known = new Set<string>();
  return {
    boss,
    async start() {
      await boss.start();
    },
    async stop() {
      // close:false — the connection belongs to db/client.ts, which closes it itself.
      await boss.stop({ graceful: true, wait: true, close: false, timeout: 10_000 });
    },
    async ensureQueue(name, options) {
      if (known.has(name)) return;
      // Processes starting together create queues at the same moment. pg-boss's create_queue adds a
      // partition to its job table, so two processes creating different queues can deadlock and
      // PostgreSQL aborts one of them; the loser's queue was then never made. Try again (the winner
      // has usually made it by then) with a short, growing, jittered pause.
      for (let attempt = 1; ; attempt++) {
        if (await boss.getQueue(name)) break;
        try {
          await boss.createQueue(name, options);
          break;
        } catch (e) {
          if (await boss.getQueue(name)) break;
          if (attempt >= QUEUE_CREATE_ATTEMPTS) throw e;
          opts.logger.warn({ err: e, queue: name, attempt }, 'creating the job queue failed; trying again');
          await new Promise((r) => setTimeout(r, 50 * attempt + Math.floor(Math.random() * 100)));
        }
      }
      known.add(name);
    },
    send(name, data, options = {}, tx) {
      return boss.send(name, data, tx ? { ...options, db: database.sqlIn(tx) } : options);
    },
  };
}

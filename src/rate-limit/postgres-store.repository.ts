import type { SqlExecutor } from '../db/client.js';
import type { SlidingLogStore } from './store.js';

/**
 * Shared by every process on one PostgreSQL: one round trip to `tidings_rate_take`, which
 * serialises callers per key on the key's counter row (migration 0001).
 */
export function createPostgresStore(sql: SqlExecutor): SlidingLogStore {
  return {
    async take(key, limit, windowMs, now) {
      const { rows } = await sql.executeSql('SELECT admitted, counted, oldest FROM tidings_rate_take($1, $2, $3, $4)', [
        key,
        limit,
        windowMs,
        now,
      ], 'tidings_rate_take');
      const row = rows[0]!;
      return { admitted: row.admitted === true, count: Number(row.counted), oldest: Number(row.oldest ?? now) };
    },
    async peek(key, windowMs, now) {
      const { rows } = await sql.executeSql(
        'SELECT count(*)::int AS n, min(at) AS oldest FROM rate_limit_hits WHERE key = $1 AND at > $2',
        [key, now - windowMs],
      );
      const row = rows[0]!;
      return { count: Number(row.n), oldest: row.oldest === null ? now : Number(row.oldest) };
    },
    async sweep(olderThan) {
      await sql.executeSql('SELECT tidings_rate_sweep($1)', [olderThan]);
    },
    close: () => Promise.resolve(),
  };
}

/**
 * Whether an error means "the database is not there right now" (it restarted, the connection
 * dropped, it refuses connections or is starting up), not "the statement is wrong". The driver's
 * error may arrive wrapped (drizzle's "Failed query" keeps it as `cause`), so the chain is followed.
 *
 * Codes: the socket's (ECONNREFUSED, ECONNRESET, ETIMEDOUT, EPIPE), PostgreSQL's 57P01–57P03
 * (terminated by an administrator, crash shutdown, cannot connect now) and 53300 (too many
 * connections). node-postgres reports a connection that ended under it without a code, as
 * "Connection terminated unexpectedly", and a query on such a client as "… not queryable".
 */
const CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', '57P01', '57P02', '57P03', '53300']);
const MESSAGES = [/^Connection terminated/, /Client has encountered a connection error and is not queryable/, /^timeout exceeded when trying to connect/];

export function isDatabaseUnavailable(err: unknown): boolean {
  let e: unknown = err;
  for (let depth = 0; depth < 5 && e !== null && typeof e === 'object'; depth++) {
    const { code, message, cause } = e as { code?: unknown; message?: unknown; cause?: unknown };
    if (typeof code === 'string' && CODES.has(code)) return true;
    if (typeof message === 'string' && MESSAGES.some((m) => m.test(message))) return true;
    e = cause;
  }
  return false;
}

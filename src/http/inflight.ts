import type { FastifyInstance } from 'fastify';

/**
 * Counts requests whose handling has started and not produced a reply. `server.close()` waits
 * for connections, not handlers: a request whose client went away keeps running, and must not
 * meet a database that shutdown already closed. Shutdown waits for this count to reach zero.
 */
export function trackInflight(app: FastifyInstance) {
  let inflight = 0;
  app.addHook('onRequest', async () => {
    inflight++;
  });
  // onSend runs for every reply, errors and aborted clients included.
  app.addHook('onSend', async () => {
    inflight = Math.max(0, inflight - 1);
  });
  return {
    count: () => inflight,
    async drained(timeoutMs: number) {
      const deadline = Date.now() + timeoutMs;
      while (inflight > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      return inflight === 0;
    },
  };
}

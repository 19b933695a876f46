import type { ServerResponse } from 'node:http';
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
    /**
     * A reply its handler took over (`reply.hijack()`: onSend never runs): it stops counting when
     * its response ends, or at once for a stream that stays open until the client leaves.
     */
    hijacked(res: ServerResponse, opts: { stream?: boolean } = {}) {
      let counted = true;
      const release = () => {
        if (!counted) return;
        counted = false;
        inflight = Math.max(0, inflight - 1);
      };
      if (opts.stream) release();
      else {
        res.once('finish', release);
        res.once('close', release);
      }
    },
    async drained(timeoutMs: number) {
      const deadline = Date.now() + timeoutMs;
      while (inflight > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      return inflight === 0;
    },
  };
}

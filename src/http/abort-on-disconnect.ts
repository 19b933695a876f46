import type { FastifyReply } from 'fastify';

/**
 * A signal that fires when the client goes away before its answer was sent (the connection closes
 * with the response unfinished), so a long upload or download stops and leaves nothing behind.
 * Call `done()` once the handler has finished.
 */
export function abortOnDisconnect(reply: FastifyReply): { signal: AbortSignal; done: () => void } {
  const controller = new AbortController();
  const onClose = () => {
    if (!reply.raw.writableFinished) controller.abort();
  };
  reply.raw.once('close', onClose);
  return { signal: controller.signal, done: () => reply.raw.off('close', onClose) };
}

import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, validationError } from '../errors.js';
import { findUnstorableText } from '../lib/storable-text.js';

/**
 * What no request may do, stopped once where requests come in rather than route by route
 * (HOUSE-STYLE "Edges"). The JSON parser (json-body.ts) bounds size and nesting; these hooks stop
 * text PostgreSQL cannot store and keep connections usable after a refusal.
 */
export function installRequestGuards(app: FastifyInstance) {
  // Node's own refusal of an HTTP/1.1 request without Host is an empty 400; the server lets such
  // requests through (`requireHostHeader: false`) so they are refused here, in the error shape.
  app.addHook('onRequest', async (req, reply) => {
    if (req.raw.httpVersion === '1.1' && req.headers.host === undefined) {
      // (and, as Node would, not kept alive: the client is not speaking HTTP/1.1 as it claims)
      void reply.header('connection', 'close');
      throw new AppError('BAD_REQUEST', 'An HTTP/1.1 request must carry a Host header');
    }
  });

  // Before validation, so every route and every later check sees only storable text.
  app.addHook('preValidation', async (req) => {
    refuseUnstorableText(req);
  });

  // A refusal sent while the request body is still arriving (an upload over its cap, a wrong
  // type, an auth failure before the body is read) leaves the rest of the body in the socket:
  // keeping the connection alive would make the client's next request on it wait for bytes that
  // are really the old body. Such answers close the connection, and what is still arriving is
  // read and dropped so the client can finish sending and read the answer.
  app.addHook('onSend', async (req, reply) => {
    // (`complete` is only ever false on a real socket; injected requests leave it unset)
    if (req.raw.complete !== false) return;
    void reply.header('connection', 'close');
    req.raw.resume();
  });
}

/**
 * NUL characters and lone surrogates in the body or query are a 400 naming each field; in a path
 * parameter they are a 404, since no object can have such an id.
 */
function refuseUnstorableText(req: FastifyRequest) {
  const params = findUnstorableText(req.params, 1);
  if (params.length > 0) throw new AppError('NOT_FOUND', `No object has the ${String(params[0]!.path[0])} given`);
  const fields = [
    ...findUnstorableText(req.query).map((f) => ({ ...f, path: f.path.length > 0 ? f.path : ['query'] })),
    ...findUnstorableText(req.body).map((f) => ({ ...f, path: f.path.length > 0 ? f.path : ['body'] })),
  ];
  if (fields.length > 0) throw validationError(fields.map((f) => ({ path: f.path.join('.'), message: f.message })));
}

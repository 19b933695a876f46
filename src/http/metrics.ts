import { timingSafeEqual, createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { PrometheusMetrics } from '../core/metrics/prometheus.js';
import { AppError } from '../errors.js';

/** The route label of a request no route took (404s, framework refusals): one fixed value, so unknown URLs add no series. */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * Records every answered request in `tidings_http_request_duration_seconds`, labelled with the
 * route's URL template (`/public/v1/posts/:id`, never the raw URL: bounded label values) and
 * the status code. Installed on the root instance, before the routes, so it sees them all.
 */
export function installHttpMetrics(app: FastifyInstance, metrics: PrometheusMetrics['metrics']) {
  // A callback hook, not an async one: no promise per request on the hottest path.
  app.addHook('onResponse', (req, reply, done) => {
    metrics.httpRequest(req.method, req.routeOptions.url ?? UNMATCHED_ROUTE, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
}

/** Compares two secrets in constant time (hashes first, so lengths do not leak either). */
function sameSecret(a: string, b: string): boolean {
  const h = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(h(a), h(b));
}

/**
 * `GET /metrics` (Prometheus text format) on the main port, outside the public API and its
 * OpenAPI document. Without `token` (METRICS_TOKEN unset) it answers 404 like any unknown route,
 * so nothing leaks by default; with one, it wants `Authorization: Bearer <token>` (401 otherwise).
 * `token: false`: no check (the admin port, which listens on a private address).
 */
export function metricsRoute(metrics: PrometheusMetrics, token: string | undefined | false) {
  return async (app: FastifyInstance) => {
    app.get('/metrics', { schema: { hide: true } }, async (req: FastifyRequest, reply: FastifyReply) => {
      if (token === undefined) throw new AppError('ROUTE_NOT_FOUND', `Route ${req.method} ${req.url.split('?')[0]} not found`);
      if (token !== false) {
        const header = req.headers.authorization;
        if (!header) {
          throw new AppError('AUTH_MISSING', 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>', { headers: { 'www-authenticate': 'Bearer realm="metrics"' } });
        }
        const [scheme, value] = header.split(' ', 2);
        if (scheme?.toLowerCase() !== 'bearer' || !value || !sameSecret(value, token)) {
          throw new AppError('AUTH_INVALID', 'The metrics token is not valid', { headers: { 'www-authenticate': 'Bearer realm="metrics", error="invalid_token"' } });
        }
      }
      const body = await metrics.render();
      return reply.header('content-type', metrics.contentType).header('cache-control', 'no-store').send(body);
    });
  };
}

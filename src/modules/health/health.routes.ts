import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { HealthService } from './health.service.js';

const ReadinessSchema = z.object({
  ready: z.boolean(),
  role: z.enum(['api', 'worker', 'all']),
  checks: z.object({
    database: z.object({ ok: z.boolean(), error: z.string().optional() }),
    migrations: z.object({ ok: z.boolean(), applied: z.number().int().nullable(), expected: z.number().int(), error: z.string().optional() }),
    publisher: z.object({ ok: z.boolean(), lastBeatAt: z.string().nullable(), required: z.boolean(), error: z.string().optional() }),
  }),
});

/** Outside /public/v1 and without credentials: for load balancers and orchestrators. */
export function healthRoutes(service: HealthService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/healthz', { schema: { response: { 200: z.object({ status: z.literal('ok') }) } } }, async () => ({ status: 'ok' as const }));
    app.get('/readyz', { schema: { response: { 200: ReadinessSchema, 503: ReadinessSchema } } }, async (_req, reply) => {
      const r = await service.readiness();
      return reply.status(r.ready ? 200 : 503).send(r);
    });
  };
}

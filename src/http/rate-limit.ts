import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../core/metrics/metrics.js';
import { AppError } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import { budgetHeaders, takeFromBudget } from '../rate-limit/budget.js';
import type { SlidingLogStore } from '../rate-limit/store.js';

/**
 * API.md §8: one sliding-log budget per organisation over every authenticated route (API keys and
 * `pos_` tokens together, and MCP tool calls: `rate-limit/budget.ts`); the web app's session calls
 * have a per-person budget instead. Runs after authentication (it needs the organisation and its
 * plan); a rejected request is not recorded, and counted in `tidings_rate_limit_refusals_total`.
 */
export function installRateLimit(app: FastifyInstance, deps: { store: SlidingLogStore; clock: Clock; metrics: Pick<Metrics, 'rateLimitRefused'> }) {
  app.addHook('onRequest', async (req, reply) => {
    let use;
    try {
      use = await takeFromBudget(deps.store, req.auth, deps.clock.now());
    } catch (e) {
      if (e instanceof AppError && e.code === 'RATE_LIMITED') deps.metrics.rateLimitRefused('api');
      throw e;
    }
    void reply.headers(budgetHeaders(use));
  });
}

import type { FastifyInstance } from 'fastify';
import type { Clock } from '../lib/clock.js';
import { budgetHeaders, takeFromBudget } from '../rate-limit/budget.js';
import type { SlidingLogStore } from '../rate-limit/store.js';

/**
 * API.md §8: one sliding-log budget per organisation over every authenticated route (API keys and
 * `pos_` tokens together, and MCP tool calls: `rate-limit/budget.ts`); the web app's session calls
 * have a per-person budget instead. Runs after authentication (it needs the organisation and its
 * plan); a rejected request is not recorded.
 */
export function installRateLimit(app: FastifyInstance, deps: { store: SlidingLogStore; clock: Clock }) {
  app.addHook('onRequest', async (req, reply) => {
    const use = await takeFromBudget(deps.store, req.auth, deps.clock.now());
    void reply.headers(budgetHeaders(use));
  });
}

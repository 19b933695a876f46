import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import type { SlidingLogStore } from '../rate-limit/store.js';

/**
 * API.md §8: one sliding-log budget per organisation over every authenticated route (API keys and
 * `pos_` tokens together); the web app's session calls have a per-person budget instead. Runs after
 * authentication (it needs the organisation and its plan); a rejected request is not recorded.
 */
export function installRateLimit(app: FastifyInstance, deps: { store: SlidingLogStore; clock: Clock }) {
  app.addHook('onRequest', async (req, reply) => {
    const limit = req.auth.rateLimit;
    const windowSeconds = req.auth.rateWindowSeconds;
    const windowMs = windowSeconds * 1000;
    const now = deps.clock.now();
    // The organisation's budget for API keys and tokens; the person's own for the web app's calls.
    const r = await deps.store.take(req.auth.rateKey, limit, windowMs, now);
    // Seconds until the oldest counted request leaves the window, i.e. until a slot frees.
    const reset = Math.max(0, Math.ceil((r.oldest + windowMs - now) / 1000));
    const remaining = Math.max(0, limit - r.count);
    void reply.headers({
      'ratelimit-limit': String(limit),
      'ratelimit-remaining': String(remaining),
      'ratelimit-reset': String(reset),
      'x-ratelimit-limit': String(limit),
      'x-ratelimit-remaining': String(remaining),
      'x-ratelimit-reset': String(reset),
    });
    if (!r.admitted) {
      throw new AppError('RATE_LIMITED', `Rate limit of ${limit} requests per ${windowSeconds} s reached; retry in ${reset} s`, {
        headers: { 'retry-after': String(Math.max(1, reset)) },
      });
    }
  });
}

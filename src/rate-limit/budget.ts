import { AppError } from '../errors.js';
import type { SlidingLogStore } from './store.js';

/** Whose request budget a call counts against (an authenticated API or MCP caller). */
export interface Budget {
  rateKey: string;
  rateLimit: number;
  rateWindowSeconds: number;
}

export interface BudgetUse {
  limit: number;
  remaining: number;
  /** seconds until the oldest counted request leaves the window, i.e. until a slot frees */
  resetSeconds: number;
}

/**
 * API.md §8: takes one request from the caller's budget (the organisation's for API keys and tokens,
 * whether over HTTP or MCP; the person's own for the web app). Answers what is left, or throws
 * RATE_LIMITED with `Retry-After`; a refused request is not recorded.
 */
export async function takeFromBudget(store: SlidingLogStore, budget: Budget, now: number): Promise<BudgetUse> {
  const { rateLimit: limit, rateWindowSeconds: windowSeconds } = budget;
  const windowMs = windowSeconds * 1000;
  const r = await store.take(budget.rateKey, limit, windowMs, now);
  const use = { limit, remaining: Math.max(0, limit - r.count), resetSeconds: Math.max(0, Math.ceil((r.oldest + windowMs - now) / 1000)) };
  if (!r.admitted) {
    throw new AppError('RATE_LIMITED', `Rate limit of ${limit} requests per ${windowSeconds} s reached; retry in ${use.resetSeconds} s`, {
      headers: { 'retry-after': String(Math.max(1, use.resetSeconds)), ...budgetHeaders(use) },
    });
  }
  return use;
}

/** The rate-limit headers of an answer (IETF draft names and the older X- ones). */
export function budgetHeaders(use: BudgetUse): Record<string, string> {
  const values = { limit: String(use.limit), remaining: String(use.remaining), reset: String(use.resetSeconds) };
  return {
    'ratelimit-limit': values.limit,
    'ratelimit-remaining': values.remaining,
    'ratelimit-reset': values.reset,
    'x-ratelimit-limit': values.limit,
    'x-ratelimit-remaining': values.remaining,
    'x-ratelimit-reset': values.reset,
  };
}

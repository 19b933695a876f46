import type { Clock } from '../lib/clock.js';
import type { SlidingLogStore } from './store.js';

/**
 * Counts failures (bad passwords, unknown codes) under several keys at once (the account, the
 * client address) and says how long to wait once any key has `max` failures in the window.
 * Only failures are recorded; a throttled attempt is not, so a steady stream of attempts does
 * not extend the wait forever.
 */
export function createFailureThrottle(deps: { store: SlidingLogStore; clock: Clock; max: number; windowSeconds: number }) {
  const windowMs = deps.windowSeconds * 1000;
  return {
    /** Seconds to wait before trying again, or 0 when no key is over its limit. */
    async waitSeconds(keys: string[]): Promise<number> {
      const now = deps.clock.now();
      let wait = 0;
      for (const key of keys) {
        const seen = await deps.store.peek(key, windowMs, now);
        if (seen.count >= deps.max) wait = Math.max(wait, Math.ceil((seen.oldest + windowMs - now) / 1000), 1);
      }
      return wait;
    },
    async recordFailure(keys: string[]): Promise<void> {
      const now = deps.clock.now();
      for (const key of keys) await deps.store.take(key, Number.MAX_SAFE_INTEGER, windowMs, now);
    },
  };
}

export type FailureThrottle = ReturnType<typeof createFailureThrottle>;

/**
 * The request counter simulators share for a platform's rate limit: a fixed window per key (a
 * token, a user, an app) that starts with the key's first request and lasts `windowMs`. What the
 * platform answers (its headers, its 429 body) stays in each simulator.
 */

export interface RateWindow {
  /** when this window began (epoch ms) */
  windowStart: number;
  /** requests counted in it, this one included */
  count: number;
}

export function fixedWindowCounter<K>(windowMs = 60_000) {
  const windows = new Map<K, RateWindow>();
  return {
    /** Counts one request of `key` at `now`: its window (a fresh one when the last has ended). */
    hit(key: K, now = Date.now()): RateWindow {
      const w = windows.get(key);
      const window = w && now - w.windowStart < windowMs ? w : { windowStart: now, count: 0 };
      window.count++;
      windows.set(key, window);
      return window;
    },
    /** When the window began `windowStart` ends (epoch ms). */
    endOf: (window: RateWindow) => window.windowStart + windowMs,
  };
}

import type { SlidingLogStore } from './store.js';

/** Per-process store: right for embedded mode, where one process serves every request. */
export function createMemoryStore(): SlidingLogStore {
  const logs = new Map<string, number[]>();

  function live(key: string, windowMs: number, now: number): number[] {
    const log = logs.get(key);
    if (!log) return [];
    let expired = 0;
    while (expired < log.length && log[expired]! <= now - windowMs) expired++;
    if (expired > 0) log.splice(0, expired);
    if (log.length === 0) logs.delete(key);
    return log;
  }

  return {
    take(key, limit, windowMs, now) {
      const log = live(key, windowMs, now);
      if (log.length >= limit) {
        return Promise.resolve({ admitted: false, count: log.length, oldest: log[0] ?? now });
      }
      // Times are kept sorted so expiry only ever trims the front (a clock that steps back is clamped).
      const at = Math.max(now, log[log.length - 1] ?? now);
      if (log.length === 0) logs.set(key, log);
      log.push(at);
      return Promise.resolve({ admitted: true, count: log.length, oldest: log[0]! });
    },
    peek(key, windowMs, now) {
      const log = live(key, windowMs, now);
      return Promise.resolve({ count: log.length, oldest: log[0] ?? now });
    },
    sweep(olderThan) {
      for (const [key, log] of logs) {
        if ((log[log.length - 1] ?? 0) <= olderThan) logs.delete(key);
      }
      return Promise.resolve();
    },
    close: () => Promise.resolve(),
  };
}

/**
 * A sliding log: each admitted event is recorded with its time; an event is admitted when fewer
 * than `limit` were admitted in the `windowMs` before it. An entry recorded at `t` stops counting
 * at exactly `t + windowMs`.
 */
export interface TakeResult {
  admitted: boolean;
  /** entries counted in the window after this call */
  count: number;
  /** time of the oldest counted entry (ms), or `now` when there is none */
  oldest: number;
}

export interface SlidingLogStore {
  /** Admit-and-record atomically (across processes for shared stores). */
  take(key: string, limit: number, windowMs: number, now: number): Promise<TakeResult>;
  /** Count without recording. */
  peek(key: string, windowMs: number, now: number): Promise<{ count: number; oldest: number }>;
  /** Drop entries older than `olderThan` (housekeeping). */
  sweep(olderThan: number): Promise<void>;
  close(): Promise<void>;
}

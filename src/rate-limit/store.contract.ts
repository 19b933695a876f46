import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { SlidingLogStore } from './store.js';

/** The behaviour every sliding-log store must have (run against memory, PostgreSQL and Redis). */
export function slidingLogContract(make: () => Promise<{ store: SlidingLogStore; close(): Promise<void> }>) {
  let store: SlidingLogStore;
  let close: () => Promise<void>;
  const key = () => `contract:${randomBytes(4).toString('hex')}`;
  beforeAll(async () => {
    ({ store, close } = await make());
  });
  afterAll(async () => close());

  it('admits up to the limit, then rejects without recording', async () => {
    const k = key();
    const t0 = 1_000_000;
    for (let i = 0; i < 3; i++) {
      const r = await store.take(k, 3, 60_000, t0 + i * 1000);
      expect(r).toEqual({ admitted: true, count: i + 1, oldest: t0 });
    }
    expect(await store.take(k, 3, 60_000, t0 + 5000)).toEqual({ admitted: false, count: 3, oldest: t0 });
    expect(await store.take(k, 3, 60_000, t0 + 59_999)).toEqual({ admitted: false, count: 3, oldest: t0 });
    // Exactly when the oldest leaves the window, one slot frees (rejections were not recorded).
    expect(await store.take(k, 3, 60_000, t0 + 60_000)).toEqual({ admitted: true, count: 3, oldest: t0 + 1000 });
    expect((await store.take(k, 3, 60_000, t0 + 60_001)).admitted).toBe(false);
    expect(await store.peek(k, 60_000, t0 + 61_000)).toEqual({ count: 2, oldest: t0 + 2000 });
  });

  it('keeps keys apart', async () => {
    const a = key();
    const b = key();
    expect((await store.take(a, 1, 1000, 5)).admitted).toBe(true);
    expect((await store.take(a, 1, 1000, 6)).admitted).toBe(false);
    expect((await store.take(b, 1, 1000, 6)).admitted).toBe(true);
  });

  it('admits exactly `limit` of many concurrent takes', async () => {
    const k = key();
    const results = await Promise.all(Array.from({ length: 40 }, () => store.take(k, 7, 60_000, 2_000_000)));
    expect(results.filter((r) => r.admitted)).toHaveLength(7);
  });

  it('sweeps old entries', async () => {
    const k = key();
    await store.take(k, 5, 1_000_000, 10);
    await store.sweep(100);
    expect((await store.peek(k, 1_000_000, 200)).count).toBe(0);
  });
}

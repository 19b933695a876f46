import { describe, expect, it } from 'vitest';
import { Semaphore } from './semaphore.js';

describe('Semaphore', () => {
  it('admits up to its limit, then hands slots to waiters in arrival order', async () => {
    const s = new Semaphore(2);
    const order: string[] = [];
    await s.acquire();
    await s.acquire();
    expect(s.held).toBe(2);
    const a = s.acquire().then(() => order.push('a'));
    const b = s.acquire().then(() => order.push('b'));
    await Promise.resolve();
    expect(order).toEqual([]);
    expect(s.queued).toBe(2);
    s.release();
    await a;
    expect(order).toEqual(['a']);
    // A newcomer does not overtake b: the next release goes to b.
    const c = s.acquire().then(() => order.push('c'));
    s.release();
    await b;
    expect(order).toEqual(['a', 'b']);
    s.release();
    await c;
    expect(order).toEqual(['a', 'b', 'c']);
    expect(s.held).toBe(2);
    s.release();
    s.release();
    expect(s.held).toBe(0);
  });
});

import { describe, expect, it } from 'vitest';
import { percentageChange } from './figures.js';

const series = (...totals: number[]) => totals.map((total, i) => ({ total, date: `2026-11-${String(i + 1).padStart(2, '0')}` }));

describe('percentageChange', () => {
  it('compares the second half of the series with the first, in percent rounded to 2 decimals', () => {
    expect(percentageChange(series(1, 1, 2, 2))).toBe(100);
    expect(percentageChange(series(3, 0, 1))).toBe(-66.67); // odd length: the middle day is left out
    expect(percentageChange(series(4, 4, 1, 0))).toBe(-87.5);
  });

  it('is 0 when there is nothing to compare: fewer than two days, or nothing in the first half', () => {
    expect(percentageChange([])).toBe(0);
    expect(percentageChange(series(5))).toBe(0);
    expect(percentageChange(series(0, 0, 3, 3))).toBe(0);
  });
});

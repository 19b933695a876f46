/** Figures shared by the adapters' analytics (`AnalyticsSeries`). */

/** Change of the second half of a series against the first, in percent (0 when there is nothing to compare). */
export function percentageChange(data: { total: number }[]): number {
  const half = Math.floor(data.length / 2);
  const before = data.slice(0, half).reduce((s, d) => s + d.total, 0);
  const after = data.slice(data.length - half).reduce((s, d) => s + d.total, 0);
  if (half === 0 || before === 0) return 0;
  return Math.round(((after - before) / before) * 10_000) / 100;
}

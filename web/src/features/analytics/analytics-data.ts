import type { components } from '../../api/schema.js';

/** One metric as the API answers it (`GET /analytics/{integrationId}` and `/analytics/post/{postId}`). */
export type AnalyticsSeries = components['schemas']['Analytics'][number];

/** The periods the app offers, in days (the API's `date` query). */
export const PERIODS = [7, 30, 90] as const;
export type Period = (typeof PERIODS)[number];

export function isPeriod(n: number): n is Period {
  return (PERIODS as readonly number[]).includes(n);
}

/** A figure as a number: platforms answer numbers, a few answer numeric strings. Not a number → null. */
export function figure(total: number | string): number | null {
  const n = typeof total === 'number' ? total : Number(String(total).trim());
  return Number.isFinite(n) && String(total).trim() !== '' ? n : null;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * How a point's date is shown. Platforms report calendar days (`2025-03-14`): those are days, not
 * instants, so they are shown as they are named (never shifted by a zone). Full instants are
 * shown in the person's zone.
 */
export function dateLabel(date: string, timeZone: string, locale?: string): string {
  if (DAY.test(date)) {
    return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date(`${date}T00:00:00Z`));
  }
  const at = Date.parse(date);
  if (Number.isNaN(at)) return date;
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone }).format(new Date(at));
}

/** A short date for a chart's axis ("3 Mar"); the year only when the points span more than one. */
export function shortDateLabel(date: string, timeZone: string, withYear: boolean, locale?: string): string {
  const opts: Intl.DateTimeFormatOptions = withYear ? { day: 'numeric', month: 'short', year: '2-digit' } : { day: 'numeric', month: 'short' };
  if (DAY.test(date)) return new Intl.DateTimeFormat(locale, { ...opts, timeZone: 'UTC' }).format(new Date(`${date}T00:00:00Z`));
  const at = Date.parse(date);
  return Number.isNaN(at) ? date : new Intl.DateTimeFormat(locale, { ...opts, timeZone }).format(new Date(at));
}

/** The points of a series in date order (the API does not promise an order). */
export function sortedPoints(series: AnalyticsSeries): AnalyticsSeries['data'] {
  return [...series.data].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
}

/** The latest figure of a series (what a tile shows), or null when it reported none. */
export function latest(series: AnalyticsSeries): { value: number; date: string } | null {
  const points = sortedPoints(series);
  for (let i = points.length - 1; i >= 0; i--) {
    const p = points[i]!;
    const v = figure(p.total);
    if (v !== null) return { value: v, date: p.date };
  }
  return null;
}

/** The period's change as people write it: "+12.5%", "−3%" (a real minus sign), "0%". */
export function formatChange(pct: number, locale?: string): string {
  if (!Number.isFinite(pct)) return '—';
  const abs = new Intl.NumberFormat(locale, { maximumFractionDigits: 1 }).format(Math.abs(pct));
  if (abs === '0') return '0%';
  return `${pct > 0 ? '+' : '\u2212'}${abs}%`;
}

/** "up", "down" or "flat": the colour and the words of a change. */
export function changeDirection(pct: number): 'up' | 'down' | 'flat' {
  if (!Number.isFinite(pct) || Math.abs(pct) < 0.05) return 'flat';
  return pct > 0 ? 'up' : 'down';
}

export function formatFigure(n: number, locale?: string): string {
  return new Intl.NumberFormat(locale, { maximumFractionDigits: 2 }).format(n);
}

/** What chart.js draws for one series: labels on the x axis and one dataset of figures. */
export interface ChartInput {
  /** full dates (tooltips) */
  labels: string[];
  /** short dates (the axis) */
  ticks: string[];
  datasets: { label: string; data: (number | null)[] }[];
}

/** A series → chart.js data: dates as labels (in order), figures (gaps where a platform sent none). */
export function toChartData(series: AnalyticsSeries, timeZone: string, locale?: string): ChartInput {
  const points = sortedPoints(series);
  const years = new Set(points.map((p) => p.date.slice(0, 4)));
  return {
    labels: points.map((p) => dateLabel(p.date, timeZone, locale)),
    ticks: points.map((p) => shortDateLabel(p.date, timeZone, years.size > 1, locale)),
    datasets: [{ label: series.label, data: points.map((p) => figure(p.total)) }],
  };
}

/** A sentence a screen reader gets for a chart (the table under it has every number). */
export function describeSeries(series: AnalyticsSeries, timeZone: string, locale?: string): string {
  const last = latest(series);
  if (!last) return `${series.label}: no figures reported`;
  return `${series.label}: ${formatFigure(last.value, locale)} on ${dateLabel(last.date, timeZone, locale)}, ${formatChange(series.percentageChange, locale)} over the period`;
}

/** Whether a series has enough points to draw a line (one point is a figure, not a trend). */
export function isTrend(series: AnalyticsSeries): boolean {
  return series.data.filter((p) => figure(p.total) !== null).length >= 2;
}

import { describe, expect, it } from 'vitest';
import { changeDirection, dateLabel, describeSeries, figure, formatChange, isTrend, latest, toChartData, type AnalyticsSeries } from './analytics-data.js';

const followers: AnalyticsSeries = {
  label: 'Followers',
  percentageChange: 12.345,
  data: [
    { total: 130, date: '2025-03-03' },
    { total: '100', date: '2025-03-01' },
    { total: 'n/a', date: '2025-03-02' },
  ],
};

describe('analytics answers → charts and figures', () => {
  it('orders points by date, reads numeric strings and leaves a gap where a figure is not a number', () => {
    const chart = toChartData(followers, 'UTC', 'en-GB');
    expect(chart.labels).toEqual(['1 Mar 2025', '2 Mar 2025', '3 Mar 2025']);
    expect(chart.ticks).toEqual(['1 Mar', '2 Mar', '3 Mar']);
    expect(chart.datasets).toEqual([{ label: 'Followers', data: [100, null, 130] }]);
    expect(latest(followers)).toEqual({ value: 130, date: '2025-03-03' });
    expect(figure('')).toBeNull();
    expect(figure(' 42 ')).toBe(42);
  });

  it('axis dates carry the year only when the points span years', () => {
    const span: AnalyticsSeries = { label: 'Views', percentageChange: 0, data: [{ total: 1, date: '2024-12-31' }, { total: 2, date: '2025-01-01' }] };
    expect(toChartData(span, 'UTC', 'en-GB').ticks).toEqual(['31 Dec 24', '1 Jan 25']);
  });

  it('a reported day stays that day in every time zone (days are not instants)', () => {
    expect(dateLabel('2025-03-01', 'Pacific/Honolulu', 'en-GB')).toBe('1 Mar 2025');
    expect(dateLabel('2025-03-01', 'Asia/Tokyo', 'en-GB')).toBe('1 Mar 2025');
    // a full instant is shown in the person's zone
    expect(dateLabel('2025-03-01T23:30:00Z', 'Asia/Tokyo', 'en-GB')).toBe('2 Mar 2025');
  });

  it('the change as +x% / −x% with a real minus sign', () => {
    expect(formatChange(12.345, 'en-GB')).toBe('+12.3%');
    expect(formatChange(-3, 'en-GB')).toBe('\u22123%');
    expect(formatChange(0, 'en-GB')).toBe('0%');
    expect(formatChange(0.01, 'en-GB')).toBe('0%');
    expect(changeDirection(-3)).toBe('down');
    expect(changeDirection(0.01)).toBe('flat');
  });

  it('one point is a figure, not a trend; the chart has a sentence for screen readers', () => {
    expect(isTrend(followers)).toBe(true);
    expect(isTrend({ label: 'Posts', percentageChange: 0, data: [{ total: 5, date: '2025-03-01' }] })).toBe(false);
    expect(describeSeries(followers, 'UTC', 'en-GB')).toBe('Followers: 130 on 3 Mar 2025, +12.3% over the period');
  });
});

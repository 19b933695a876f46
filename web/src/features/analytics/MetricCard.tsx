import { lazy, Suspense, useId } from 'react';
import { Spinner } from '../../components/ui.js';
import { changeDirection, dateLabel, figure, formatChange, formatFigure, isTrend, latest, sortedPoints, type AnalyticsSeries } from './analytics-data.js';
import './analytics.css';

// chart.js is loaded only when there is a trend to draw.
const MetricChart = lazy(() => import('./MetricChart.js'));

const DIRECTION_WORDS = { up: 'up', down: 'down', flat: 'no change' } as const;

/**
 * One metric: its latest figure, the period's change (+x% / −x%), a line when the platform sent
 * more than one point, and every number in a table (for screen readers and for reading exactly).
 */
export function MetricCard({ series, timeZone, compact = false }: { series: AnalyticsSeries; timeZone: string; compact?: boolean }) {
  const titleId = useId();
  const last = latest(series);
  const trend = isTrend(series);
  const direction = changeDirection(series.percentageChange);
  const points = sortedPoints(series);
  return (
    <article className={`card metric-card${compact ? ' metric-card-compact' : ''}`} aria-labelledby={titleId}>
      <h3 className="metric-label" id={titleId}>
        {series.label}
      </h3>
      <p className="metric-value">{last ? formatFigure(last.value) : '—'}</p>
      <p className="metric-sub">
        {trend || series.percentageChange !== 0 ? (
          <span className={`metric-change change-${direction}`}>
            {formatChange(series.percentageChange)}
            <span className="visually-hidden"> ({DIRECTION_WORDS[direction]} over the period)</span>
          </span>
        ) : null}
        {last ? <span className="hint">{trend ? `latest, ${dateLabel(last.date, timeZone)}` : `as of ${dateLabel(last.date, timeZone)}`}</span> : <span className="hint">no figure reported</span>}
      </p>
      {trend ? (
        <Suspense fallback={<Spinner label="Loading the chart" />}>
          <MetricChart series={series} timeZone={timeZone} height={compact ? 70 : 170} compact={compact} />
        </Suspense>
      ) : null}
      {/* one point is already written out above; a history is also given as a table */}
      {points.length > 1 ? (
        <details className="metric-numbers">
          <summary>All {points.length} numbers</summary>
          <table className="table">
            <caption className="visually-hidden">{series.label} by date</caption>
            <thead>
              <tr>
                <th scope="col">Date</th>
                <th scope="col" className="num">
                  {series.label}
                </th>
              </tr>
            </thead>
            <tbody>
              {points.map((p) => {
                const v = figure(p.total);
                return (
                  <tr key={p.date}>
                    <td>{dateLabel(p.date, timeZone)}</td>
                    <td className="num">{v === null ? String(p.total) : formatFigure(v)}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </details>
      ) : null}
    </article>
  );
}

/** A grid of metric cards. */
export function MetricGrid({ series, timeZone, compact }: { series: AnalyticsSeries[]; timeZone: string; compact?: boolean }) {
  return (
    // figures without a history are small tiles; charts get room
    <div className={`metric-grid${compact || !series.some(isTrend) ? ' metric-grid-compact' : ''}`}>
      {series.map((s, i) => (
        <MetricCard key={`${i}:${s.label}`} series={s} timeZone={timeZone} compact={compact ?? false} />
      ))}
    </div>
  );
}

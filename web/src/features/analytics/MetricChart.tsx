import { CategoryScale, Chart, Filler, LinearScale, LineController, LineElement, PointElement, Tooltip, type ChartOptions } from 'chart.js';
import { useMemo } from 'react';
import { Line } from 'react-chartjs-2';
import { describeSeries, toChartData, type AnalyticsSeries } from './analytics-data.js';

// Only the parts a line chart with tooltips needs (the rest of chart.js stays out of the chunk).
Chart.register(LineController, LineElement, PointElement, LinearScale, CategoryScale, Tooltip, Filler);

/** The app's colours (styles.css variables), read when a chart is drawn so dark mode is respected. */
function themeColours() {
  const css = getComputedStyle(document.documentElement);
  const read = (name: string, fallback: string) => css.getPropertyValue(name).trim() || fallback;
  return { accent: read('--accent', '#2354d6'), line: read('--line', '#d5d7dd'), muted: read('--muted', '#5b5b66') };
}

/** withAlpha('#2354d6', 0.15) → an rgba() for the area under the line. */
function withAlpha(hex: string, alpha: number): string {
  const m = /^#([0-9a-f]{6})$/i.exec(hex);
  if (!m) return hex;
  const n = parseInt(m[1]!, 16);
  return `rgba(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255}, ${alpha})`;
}

/**
 * One metric over the period as a line (chart.js). The canvas is an image with a sentence for
 * screen readers; the numbers themselves are in the table that goes with each chart.
 */
export default function MetricChart({ series, timeZone, height = 160, compact = false }: { series: AnalyticsSeries; timeZone: string; height?: number; compact?: boolean }) {
  const input = useMemo(() => toChartData(series, timeZone), [series, timeZone]);
  const data = useMemo(() => {
    const c = themeColours();
    return {
      labels: input.labels,
      datasets: input.datasets.map((d) => ({
        ...d,
        borderColor: c.accent,
        backgroundColor: withAlpha(c.accent, 0.14),
        pointBackgroundColor: c.accent,
        pointRadius: input.labels.length > 40 ? 0 : 2.5,
        pointHoverRadius: 4,
        borderWidth: 2,
        tension: 0.25,
        fill: true,
        spanGaps: true,
      })),
    };
  }, [input]);

  const options = useMemo<ChartOptions<'line'>>(() => {
    const c = themeColours();
    return {
      responsive: true,
      maintainAspectRatio: false,
      animation: false,
      interaction: { mode: 'index', intersect: false },
      plugins: { legend: { display: false }, tooltip: { displayColors: false } },
      scales: {
        x: { display: !compact, grid: { display: false }, ticks: { color: c.muted, maxTicksLimit: 6, maxRotation: 0, autoSkipPadding: 12, callback: (_value, index) => input.ticks[index] ?? '' } },
        y: { display: !compact, beginAtZero: false, grid: { color: c.line }, ticks: { color: c.muted, maxTicksLimit: 5, precision: 0 } },
      },
    };
  }, [compact, input]);

  return (
    <div className="metric-chart" style={{ height }}>
      <Line data={data} options={options} role="img" aria-label={describeSeries(series, timeZone)} />
    </div>
  );
}

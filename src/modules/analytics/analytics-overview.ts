import type { AnalyticsSeries } from '../../platforms/platform.js';

/**
 * The pure parts of the analytics overview: which of a platform's series count as reach,
 * impressions or engagement, and the overview as CSV. Platforms name their figures in their own
 * words (Bluesky's "Likes", Facebook's "Engagements", Pinterest's "Impressions"…), so the words are
 * matched here, once, and a platform that reports none of them stays `null` ("not reported"), never 0.
 */

export interface OverviewFigures {
  reach: number | null;
  impressions: number | null;
  engagement: number | null;
}

const REACH = /\breach\b/i;
const IMPRESSIONS = /^(impressions|views)$/i;
/** A platform's own engagement total, when it reports one (Facebook, Pinterest): taken as is. */
const ENGAGEMENT_TOTAL = /^engagements?$/i;
/** Interactions summed into engagement when the platform reports no total of its own. */
const INTERACTIONS = /^(likes|reactions|replies|comments|reposts|recasts|boosts|quotes|shares|saves|notes|pin clicks|clicks)$/i;

/** The sum of a series' points (a daily series over its days; an "as of now" series is one point). */
function totalOf(series: AnalyticsSeries): number {
  return series.data.reduce((sum, d) => sum + (Number(d.total) || 0), 0);
}

function sumOf(series: AnalyticsSeries[], match: RegExp): number | null {
  const matched = series.filter((s) => match.test(s.label.trim()));
  return matched.length === 0 ? null : matched.reduce((sum, s) => sum + totalOf(s), 0);
}

/** Reach, impressions and engagement of a channel's or a post's series; `null` for what is not reported. */
export function summariseSeries(series: AnalyticsSeries[]): OverviewFigures {
  return {
    reach: sumOf(series, REACH),
    impressions: sumOf(series, IMPRESSIONS),
    engagement: sumOf(series, ENGAGEMENT_TOTAL) ?? sumOf(series, INTERACTIONS),
  };
}

/**
 * One CSV field (RFC 4180): quoted when it holds a comma, a quote, CR or LF, quotes doubled. A text
 * starting with `=`, `+`, `-`, `@`, tab or CR gets a leading `'` so a spreadsheet shows it instead of
 * running it as a formula (channel names come from the platforms: OWASP "CSV injection").
 */
export function csvField(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** Rows of fields as CSV text: CRLF line ends, a final CRLF (RFC 4180). */
export function toCsv(rows: (string | number | null | undefined)[][]): string {
  return rows.map((row) => row.map(csvField).join(',')).join('\r\n') + '\r\n';
}

export const NOT_REPORTED = 'not reported';

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", apos: "'", nbsp: ' ' };

/** A post's HTML as a short line of text, for the overview's best and worst posts. */
export function excerptOf(html: string, max = 120): string {
  const text = html
    .replace(/<\/(p|li|h[1-6]|blockquote)>|<br\s*\/?>/gi, ' ')
    .replace(/<[^>]*>/g, '')
    .replace(/&(amp|lt|gt|quot|#39|apos|nbsp);/g, (_, e: string) => ENTITIES[e]!)
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > max ? `${text.slice(0, max - 1).trimEnd()}…` : text;
}

import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, API_BASE, unwrap } from '../../api/client.js';
import type { components } from '../../api/schema.js';
import { useTimeZone } from '../../api/session.js';
import { EmptyState, ErrorNotice, Spinner } from '../../components/ui.js';
import { formatDateTime, utcTitle } from '../../lib/time.js';
import { ChannelAvatar } from '../channels/PlatformMark.js';
import { useSandboxIds } from '../sandbox/queries.js';
import type { Period } from './analytics-data.js';
import './overview.css';

type Overview = components['schemas']['AnalyticsOverview'];
type OverviewPost = NonNullable<Overview['best']>;

/** The overview across channels (GET /analytics/overview?days=N). */
export function useAnalyticsOverview(days: Period) {
  return useQuery({
    queryKey: ['analytics-overview', days],
    queryFn: (): Promise<Overview> => unwrap(api.GET('/analytics/overview', { params: { query: { days } } })),
    staleTime: 5 * 60_000,
    placeholderData: (previous) => previous,
  });
}

const NUMBER = new Intl.NumberFormat();

/** A figure, or "not reported" (never a 0 the platform did not give). */
function Figure({ value }: { value: number | null }) {
  return value === null ? <span className="hint not-reported">not reported</span> : <>{NUMBER.format(value)}</>;
}

function total(channels: Overview['channels'], key: 'reach' | 'impressions' | 'engagement'): number | null {
  const reported = channels.filter((c) => c[key] !== null);
  return reported.length === 0 ? null : reported.reduce((s, c) => s + c[key]!, 0);
}

function PostCard({ title, post, channels }: { title: string; post: OverviewPost | null; channels: Overview['channels'] }) {
  const tz = useTimeZone();
  const channel = post ? channels.find((c) => c.id === post.integrationId) : undefined;
  return (
    <section className="card overview-post" aria-label={title}>
      <h3>{title}</h3>
      {post ? (
        <>
          <p>
            <Link to={`/posts/${post.id}`}>{post.excerpt || '(no text)'}</Link>
          </p>
          <p className="hint">
            {channel ? `${channel.name} · ` : ''}
            <time dateTime={post.publishDate} title={utcTitle(post.publishDate)}>
              {formatDateTime(post.publishDate, tz)}
            </time>{' '}
            · {NUMBER.format(post.engagement)} engagement
          </p>
        </>
      ) : (
        <p className="hint">No published post of the period reports engagement{title.startsWith('Worst') ? ' (two are needed to compare)' : ''}.</p>
      )}
    </section>
  );
}

/** Every channel at a glance: totals, one row per channel, the best and worst posts, and the CSV. */
export function AnalyticsOverview({ days, onOpenChannel }: { days: Period; onOpenChannel: (id: string) => void }) {
  const overview = useAnalyticsOverview(days);
  // sandbox channels' figures are the simulator's: each row says so
  const sandboxIds = useSandboxIds();
  const o = overview.data;
  if (overview.isPending) return <Spinner label="Loading the overview" />;
  if (!o) return <ErrorNotice error={overview.error} />;
  if (o.channels.length === 0) return <EmptyState title="No channels yet" />;
  const posts = o.channels.reduce((s, c) => s + c.posts, 0);
  const cards: [string, number | null][] = [
    ['Posts published', posts],
    ['Reach', total(o.channels, 'reach')],
    ['Impressions', total(o.channels, 'impressions')],
    ['Engagement', total(o.channels, 'engagement')],
  ];
  return (
    <section className="analytics-overview" aria-labelledby="overview-heading" aria-busy={overview.isFetching}>
      <div className="overview-head">
        <h2 id="overview-heading">All channels, last {days} days</h2>
        <a className="btn btn-secondary" href={`${API_BASE}/analytics/overview.csv?days=${days}`} download={`analytics-overview-${days}-days.csv`}>
          Export CSV
        </a>
      </div>
      <ErrorNotice error={overview.error} />
      <ul className="overview-cards" aria-label="Totals">
        {cards.map(([label, value]) => (
          <li key={label} className="card overview-card">
            <span className="overview-card-label">{label}</span>
            <span className="overview-card-value">
              <Figure value={value} />
            </span>
          </li>
        ))}
      </ul>
      <div className="table-scroll">
        <table className="table overview-table">
          <caption className="visually-hidden">Figures per channel, last {days} days</caption>
          <thead>
            <tr>
              <th scope="col">Channel</th>
              <th scope="col">Posts</th>
              <th scope="col">Reach</th>
              <th scope="col">Impressions</th>
              <th scope="col">Engagement</th>
            </tr>
          </thead>
          <tbody>
            {o.channels.map((c) => (
              <tr key={c.id} data-channel={c.id}>
                <th scope="row">
                  <button type="button" className="linklike overview-channel" onClick={() => onOpenChannel(c.id)}>
                    <ChannelAvatar picture={c.picture} identifier={c.identifier} name={c.name} size={26} sandbox={sandboxIds.has(c.id)} />
                    <span>
                      {c.name}
                      <span className="hint">
                        {' '}
                        {c.platform}
                        {sandboxIds.has(c.id) ? ' · sandbox' : ''}
                      </span>
                    </span>
                  </button>
                  {c.unavailable ? <span className="hint overview-unavailable">{c.unavailable}</span> : null}
                </th>
                <td>{NUMBER.format(c.posts)}</td>
                <td>
                  <Figure value={c.reach} />
                </td>
                <td>
                  <Figure value={c.impressions} />
                </td>
                <td>
                  <Figure value={c.engagement} />
                  {c.engagementFrom === 'posts' ? <span className="hint"> (its posts)</span> : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div className="overview-posts">
        <PostCard title="Best post" post={o.best} channels={o.channels} />
        <PostCard title="Worst post" post={o.worst} channels={o.channels} />
      </div>
    </section>
  );
}

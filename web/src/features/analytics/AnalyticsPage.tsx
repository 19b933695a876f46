import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { Link, useSearchParams } from 'react-router';
import { api, unwrap } from '../../api/client.js';
import { usePosts, useIntegrations, type Integration } from '../../api/queries.js';
import { useTimeZone } from '../../api/session.js';
import { EmptyState, ErrorNotice, Notice, PageHeader, Spinner } from '../../components/ui.js';
import { platformName } from '../../lib/platforms.js';
import { ChannelAvatar } from '../channels/PlatformMark.js';
import { formatDateTime, utcTitle } from '../../lib/time.js';
import { excerpt } from '../posts/RichContent.js';
import { isPeriod, type AnalyticsSeries, type Period } from './analytics-data.js';
import { AnalyticsOverview } from './AnalyticsOverview.js';
import { MetricGrid } from './MetricCard.js';
import { PeriodPicker } from './PeriodPicker.js';
import './analytics.css';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** The channel's figures over N days (GET /analytics/{integrationId}?date=N; [] where the platform reports none). */
export function useChannelAnalytics(integrationId: string | undefined, days: Period) {
  return useQuery({
    queryKey: ['analytics', integrationId ?? '', days],
    queryFn: (): Promise<AnalyticsSeries[]> => unwrap(api.GET('/analytics/{integrationId}', { params: { path: { integrationId: integrationId! }, query: { date: days } } })),
    enabled: Boolean(integrationId),
    // the service caches platform figures for minutes; asking again sooner gains nothing
    staleTime: 5 * 60_000,
    // switching the period keeps the channel's last figures on screen until the new ones arrive
    placeholderData: (previous, previousQuery) => (previousQuery?.queryKey[1] === integrationId ? previous : undefined),
  });
}

/** [start, end] of the last `days` days, on whole hours so the query key holds still between renders. */
function periodWindow(days: number): { startDate: string; endDate: string } {
  const end = Math.ceil(Date.now() / HOUR) * HOUR;
  return { startDate: new Date(end - days * DAY).toISOString(), endDate: new Date(end).toISOString() };
}

function ChannelLabel({ integration }: { integration: Integration }) {
  return (
    <span className="channel-label">
      <ChannelAvatar picture={integration.picture} identifier={integration.identifier} name={integration.name} size={28} sandbox={integration.sandbox} />
      <span>
        <strong>{integration.name}</strong>
        <span className="hint">
          {' '}
          {platformName(integration.identifier)}
          {integration.profile ? ` · ${integration.profile}` : ''}
          {integration.sandbox ? ' · sandbox (simulated figures)' : ''}
        </span>
      </span>
    </span>
  );
}

function RecentPosts({ integration, days }: { integration: Integration; days: Period }) {
  const tz = useTimeZone();
  const span = useMemo(() => periodWindow(days), [days]);
  const posts = usePosts(span.startDate, span.endDate);
  const published = useMemo(
    () =>
      (posts.data ?? [])
        .filter((p) => p.integration.id === integration.id && p.state === 'PUBLISHED')
        .sort((a, b) => Date.parse(b.publishedAt ?? b.publishDate) - Date.parse(a.publishedAt ?? a.publishDate)),
    [posts.data, integration.id],
  );
  return (
    <section className="analytics-posts" aria-labelledby="recent-posts">
      <h2 id="recent-posts">Published posts, last {days} days</h2>
      <p className="hint">Open a post for its own figures.</p>
      {posts.isPending ? <Spinner label="Loading posts" /> : null}
      <ErrorNotice error={posts.error} />
      {posts.data && published.length === 0 ? <EmptyState title={`Nothing published on ${integration.name} in the last ${days} days`} /> : null}
      {published.length > 0 ? (
        <div className="table-scroll">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Post</th>
                <th scope="col">Published</th>
                <th scope="col">On {platformName(integration.identifier)}</th>
              </tr>
            </thead>
            <tbody>
              {published.map((p) => {
                const at = p.publishedAt ?? p.publishDate;
                return (
                  <tr key={p.id}>
                    <td>
                      <Link to={`/posts/${p.id}`}>{excerpt(p.content, 90) || '(no text)'}</Link>
                    </td>
                    <td className="nowrap">
                      <time dateTime={at} title={utcTitle(at)}>
                        {formatDateTime(at, tz)}
                      </time>
                    </td>
                    <td>
                      {p.releaseURL ? (
                        <a href={p.releaseURL} target="_blank" rel="noopener noreferrer">
                          Open<span className="visually-hidden"> on {platformName(integration.identifier)}</span> ↗
                        </a>
                      ) : (
                        <span className="hint">no link</span>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}

/** Channel figures over 7/30/90 days, one chart per metric, and the period's published posts. */
export default function AnalyticsPage() {
  const tz = useTimeZone();
  const integrations = useIntegrations();
  const [params, setParams] = useSearchParams();
  const requestedDays = Number(params.get('days'));
  const days: Period = isPeriod(requestedDays) ? requestedDays : 30;
  const channels = integrations.data ?? [];
  // no channel asked for: the overview across channels; the per-channel view stays one choice away
  const selected = channels.find((c) => c.id === params.get('channel'));
  const figures = useChannelAnalytics(selected?.id, days);

  function choose(next: { channel?: string; days?: Period }) {
    const p = new URLSearchParams(params);
    if (next.channel === '') p.delete('channel');
    else if (next.channel) p.set('channel', next.channel);
    if (next.days) p.set('days', String(next.days));
    setParams(p, { replace: true });
  }

  return (
    <>
      <PageHeader title="Analytics">
        <p className="hint">Figures as each platform reports them to Tidings.</p>
      </PageHeader>
      {integrations.isPending ? <Spinner label="Loading channels" /> : null}
      <ErrorNotice error={integrations.error} />
      {integrations.data && channels.length === 0 ? (
        <EmptyState title="No channels yet">
          <p>
            <Link to="/channels">Connect a channel</Link> to see its figures here.
          </p>
        </EmptyState>
      ) : null}
      {channels.length > 0 ? (
        <div className="analytics-controls">
          <div className="field">
            <label htmlFor="analytics-channel">Channel</label>
            <select id="analytics-channel" value={selected?.id ?? ''} onChange={(e) => choose({ channel: e.target.value })}>
              <option value="">All channels (overview)</option>
              {channels.map((c) => (
                  <option key={c.id} value={c.id}>
                    {c.name} — {platformName(c.identifier)}
                    {c.disabled ? ' (disabled)' : ''}
                  </option>
                ))}
            </select>
          </div>
          <PeriodPicker days={days} onChange={(d) => choose({ days: d })} />
        </div>
      ) : null}
      {channels.length > 0 && !selected ? <AnalyticsOverview days={days} onOpenChannel={(id) => choose({ channel: id })} /> : null}
      {selected ? (
        <>
          <section className="analytics-figures" aria-labelledby="channel-figures" aria-busy={figures.isFetching}>
            <h2 id="channel-figures" className="analytics-heading">
              <ChannelLabel integration={selected} />
              <span className="hint">last {days} days</span>
            </h2>
            {figures.isPending ? <Spinner label="Loading figures" /> : null}
            <ErrorNotice error={figures.error} />
            {figures.data && figures.data.length === 0 ? (
              <Notice>
                {platformName(selected.identifier)} does not report figures to Tidings, so there is nothing to chart for {selected.name}. Choose another channel.
              </Notice>
            ) : null}
            {figures.data && figures.data.length > 0 ? (
              <>
                <MetricGrid series={figures.data} timeZone={tz} />
                {figures.data.every((s) => s.data.length <= 1) ? (
                  <p className="hint">{platformName(selected.identifier)} reports only the current figures, not their history: the period does not change them.</p>
                ) : null}
              </>
            ) : null}
          </section>
          <RecentPosts integration={selected} days={days} />
        </>
      ) : null}
    </>
  );
}

import { useQueries } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useState } from 'react';
import { Link, useLocation } from 'react-router';
import { api, unwrap } from '../../api/client.js';
import { useIntegrations } from '../../api/queries.js';
import { useTimeZone } from '../../api/session.js';
import { ConfirmDialog } from '../../components/ConfirmDialog.js';
import { Button, EmptyState, ErrorNotice, Notice, Spinner } from '../../components/ui.js';
import { platformName } from '../../lib/platforms.js';
import { formatDateTime, utcTitle } from '../../lib/time.js';
import { describeRule } from '../compose/repeat.js';
import { seriesState } from '../posts/SeriesPanel.js';
import { seriesKeys, templatePosts, useSeriesList, useStopSeries, type SeriesListItem } from '../posts/series-queries.js';
import './series-tab.css';

const ComposeDialog = lazy(() => import('../compose/ComposeDialog.js'));

/**
 * Repeating posts (issue 30; /autopilot/repeating): every series of the organisation with its rule,
 * channels, next posts and state (active, completed, or stopped with the reason), and a way to stop
 * one. New ones are made in the composer ("Repeat" beside the date).
 */
export function SeriesTab() {
  const list = useSeriesList();
  const integrations = useIntegrations();
  const tz = useTimeZone();
  const { hash } = useLocation();
  const [composing, setComposing] = useState(false);
  const [stopping, setStopping] = useState<SeriesListItem | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const stop = useStopSeries((r) => {
    setStopping(null);
    setDone(`Stopped repeating: ${r.deleted} unpublished post${r.deleted === 1 ? '' : 's'} removed, ${r.kept} published kept.`);
  });

  const items = list.data ?? [];
  const details = useQueries({
    queries: items.map((s) => ({
      queryKey: seriesKeys.one(s.id),
      queryFn: () => unwrap(api.GET('/series/{id}', { params: { path: { id: s.id } } })),
    })),
  });
  const detailOf = new Map(items.map((s, i) => [s.id, details[i]]));

  // a link to one series (from a post's Repeating panel) brings it into view
  useEffect(() => {
    if (!hash || !list.data) return;
    const el = document.getElementById(decodeURIComponent(hash.slice(1)));
    if (el) {
      el.scrollIntoView({ block: 'start' });
      el.focus();
    }
  }, [hash, list.data]);

  const nameOf = (id: string) => {
    const c = integrations.data?.find((x) => x.id === id);
    return c ? `${c.name} (${platformName(c.identifier)})` : 'A removed channel';
  };

  const newButton = <Button onClick={() => setComposing(true)}>New repeating post</Button>;
  /** series ended by "Edit this and following": a newer one took over from some post on */
  const replaced = new Set(items.map((s) => s.previousSeriesId).filter((id): id is string => Boolean(id)));
  const stateOf = (s: SeriesListItem) => seriesState(detailOf.get(s.id)?.data ?? s);
  const running = items.filter((s) => stateOf(s).kind === 'active');
  const finished = items.filter((s) => stateOf(s).kind !== 'active');

  function card(s: SeriesListItem) {
    const state = stateOf(s);
    const q = detailOf.get(s.id);
    const detail = q?.data;
    const upcoming = (detail?.nextOccurrences ?? []).filter((o) => Date.parse(o.publishDate) > Date.now()).slice(0, 3);
    const channels = [...new Set(templatePosts(s.template).map((p) => p.integration.id))];
    const titleId = `series-${s.id}-title`;
    return (
      <li key={s.id} id={`series-${s.id}`} tabIndex={-1} className={`card series-card series-card-${state.kind}`} aria-labelledby={titleId}>
        <div className="series-card-head">
          <h3 id={titleId} className="series-card-title">
            {describeRule(s.rule)}
          </h3>
          <span className={`badge series-badge-${state.kind}`}>{state.kind === 'active' ? 'Active' : state.kind === 'broken' ? 'Stopped' : 'Completed'}</span>
        </div>
        {replaced.has(s.id) ? (
          <p className="hint series-card-reason">Its later posts were changed (“Edit this and following”): they belong to a newer repeating post.</p>
        ) : state.kind === 'active' && s.completed ? (
          <p className="hint series-card-reason">Every post of it is made; the last ones are still to come.</p>
        ) : null}
        {state.kind === 'broken' && s.broken ? (
          <p className="error series-card-reason">
            Stopped {formatDateTime(s.broken.at, tz)}: {s.broken.reason}
          </p>
        ) : null}
        <dl className="series-card-meta">
          <dt>Channels</dt>
          <dd>{channels.length > 0 ? channels.map(nameOf).join(', ') : '—'}</dd>
          <dt>Made as</dt>
          <dd>{s.type === 'draft' ? 'Drafts' : 'Scheduled posts'}</dd>
          <dt>Next</dt>
          <dd>
            {q?.isPending ? (
              <Spinner label="Loading the next posts" />
            ) : q?.error ? (
              <ErrorNotice error={q.error} />
            ) : upcoming.length === 0 ? (
              <span className="hint">{state.kind === 'active' ? 'None made yet' : 'No more posts'}</span>
            ) : (
              <ul className="series-next">
                {upcoming.map((o) => (
                  <li key={o.index}>
                    <Link to={`/posts/${encodeURIComponent(o.posts[0]?.postId ?? '')}`} title={utcTitle(o.publishDate)}>
                      {formatDateTime(o.publishDate, tz)}
                    </Link>
                  </li>
                ))}
              </ul>
            )}
          </dd>
          {detail ? (
            <>
              <dt>So far</dt>
              <dd>
                {detail.counts.published} published · {detail.counts.queued} queued
                {detail.counts.drafts > 0 ? ` · ${detail.counts.drafts} drafts` : ''}
                {detail.counts.failed > 0 ? ` · ${detail.counts.failed} failed` : ''}
              </dd>
            </>
          ) : null}
        </dl>
        <div className="series-card-actions">
          <Button variant="danger" onClick={() => setStopping(s)} disabled={stop.isPending} aria-label={`Stop repeating: ${describeRule(s.rule)}`}>
            Stop repeating
          </Button>
        </div>
      </li>
    );
  }

  return (
    <div className="series-tab">
      <div className="series-tab-head">
        <p className="hint">Posts that repeat on a rule: each one is a real post in the calendar, made up to 30 days ahead. To make one, choose “Repeat” beside the date in the composer.</p>
        {items.length > 0 ? newButton : null}
      </div>
      {done ? <Notice kind="ok">{done}</Notice> : null}
      <ErrorNotice error={stop.error} />
      {list.isPending ? <Spinner label="Loading repeating posts" /> : null}
      <ErrorNotice error={list.error} />
      {list.data && items.length === 0 ? (
        <EmptyState title="No repeating posts yet">
          <p>Write a post in the composer and choose “Repeat” beside its date: daily, weekly on chosen days, or monthly.</p>
          {newButton}
        </EmptyState>
      ) : null}
      {running.length > 0 ? (
        <section aria-labelledby="series-running">
          <h2 id="series-running" className="series-tab-h2">
            Active ({running.length})
          </h2>
          <ul className="series-list">{running.map(card)}</ul>
        </section>
      ) : null}
      {finished.length > 0 ? (
        <section aria-labelledby="series-finished">
          <h2 id="series-finished" className="series-tab-h2">
            Completed or stopped ({finished.length})
          </h2>
          <ul className="series-list">{finished.map(card)}</ul>
        </section>
      ) : null}
      <ConfirmDialog
        open={stopping !== null}
        title="Stop repeating?"
        description={`${stopping ? describeRule(stopping.rule) : ''}. No more posts are made from it, and its posts not yet published (queued and drafts) are deleted. Published posts stay, with their history.`}
        cancel="Keep repeating"
        confirm="Stop repeating"
        onCancel={() => setStopping(null)}
        onConfirm={() => stopping && stop.mutate(stopping.id)}
      />
      {composing ? (
        <Suspense fallback={<Spinner label="Opening the composer" />}>
          <ComposeDialog open onOpenChange={(open) => (open ? undefined : setComposing(false))} />
        </Suspense>
      ) : null}
    </div>
  );
}

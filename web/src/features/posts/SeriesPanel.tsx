import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { ApiFailure } from '../../api/client.js';
import { useIntegrations } from '../../api/queries.js';
import { ConfirmDialog } from '../../components/ConfirmDialog.js';
import { Button, ErrorNotice, Field, Notice, Spinner } from '../../components/ui.js';
import { formatDateTime, partsInZone, utcTitle } from '../../lib/time.js';
import { RepeatIcon } from '../calendar/StateIcon.js';
import { htmlToPlain, textToHtml } from '../compose/counting.js';
import { describeRule, WEEKDAYS, weekdayOf, type SeriesRule, type Weekday } from '../compose/repeat.js';
import type { PostDetail } from './post-queries.js';
import { templatePosts, useEditFollowing, useSeries, useStopSeries, type SeriesDetail } from './series-queries.js';

/** Where a series is listed (the Autopilot tab, scrolled to it). */
export const seriesHref = (id: string) => `/autopilot/repeating#series-${encodeURIComponent(id)}`;

/**
 * "Active", "Completed" or "Stopped: <reason>". The API's `completed` says no more posts will be
 * made; while some of those made are still to come, the series is still active to a person.
 */
export function seriesState(s: Pick<SeriesDetail, 'completed' | 'broken'> & { nextOccurrences?: { publishDate: string }[] }): { label: string; kind: 'active' | 'completed' | 'broken' } {
  if (s.broken) return { label: `Stopped: ${s.broken.reason}`, kind: 'broken' };
  const toCome = (s.nextOccurrences ?? []).some((o) => Date.parse(o.publishDate) > Date.now());
  if (s.completed && toCome) return { label: 'Active: every post of it is made, the last ones still to come', kind: 'active' };
  if (s.completed) return { label: 'Completed', kind: 'completed' };
  return { label: 'Active', kind: 'active' };
}

/**
 * The "Repeating" panel of a post that is an occurrence of a series (issue 30): the rule, what
 * comes next, "Edit this and following" (PATCH /series/{id}, scope following from this post) and
 * "Stop repeating" (DELETE /series/{id}). Editing this one post alone is the page's normal Edit.
 */
export function SeriesPanel({ post, tz }: { post: PostDetail; tz: string }) {
  const seriesId = post.seriesId!;
  const navigate = useNavigate();
  const series = useSeries(seriesId);
  const [editing, setEditing] = useState(false);
  const [asking, setAsking] = useState(false);
  const [stopped, setStopped] = useState<string | null>(null);
  const stop = useStopSeries((r) => {
    setAsking(false);
    const mine = post.state === 'PUBLISHED' || post.state === 'ERROR';
    if (!mine) void navigate('/calendar', { replace: true });
    else setStopped(`Stopped repeating: ${r.deleted} unpublished post${r.deleted === 1 ? '' : 's'} removed, ${r.kept} published kept.`);
  });

  let body;
  if (series.isPending) body = <Spinner label="Loading the repeating post" />;
  else if (series.error) {
    body =
      series.error instanceof ApiFailure && series.error.status === 404 ? (
        <p className="hint">This post was made by a repeating post that has since been stopped.</p>
      ) : (
        <ErrorNotice error={series.error} />
      );
  } else {
    const s = series.data;
    const state = seriesState(s);
    const upcoming = s.nextOccurrences.filter((o) => Date.parse(o.publishDate) > Date.now()).slice(0, 3);
    body = (
      <>
        <p className="series-summary">{describeRule(s.rule)}</p>
        <p className={`series-state series-${state.kind}`}>{state.label}</p>
        {upcoming.length > 0 ? (
          <p className="hint">
            Next:{' '}
            {upcoming.map((o, i) => (
              <span key={o.index}>
                {i > 0 ? ', ' : ''}
                <time dateTime={o.publishDate} title={utcTitle(o.publishDate)}>
                  {formatDateTime(o.publishDate, tz)}
                </time>
              </span>
            ))}
          </p>
        ) : null}
        <p className="series-links">
          <Link to={seriesHref(s.id)}>See all repeating posts</Link>
        </p>
        {stopped ? <Notice kind="ok">{stopped}</Notice> : null}
        {editing ? (
          <EditFollowing
            series={s}
            post={post}
            tz={tz}
            onCancel={() => setEditing(false)}
            onSaved={(firstPostId) => {
              setEditing(false);
              if (firstPostId && firstPostId !== post.id) void navigate(`/posts/${encodeURIComponent(firstPostId)}`, { replace: true });
            }}
          />
        ) : stopped ? null : (
          <div className="series-actions">
            <Button variant="secondary" onClick={() => setEditing(true)}>
              Edit this and following
            </Button>
            <Button variant="danger" onClick={() => setAsking(true)} disabled={stop.isPending}>
              Stop repeating
            </Button>
          </div>
        )}
        <ErrorNotice error={stop.error} />
      </>
    );
  }

  return (
    <section className="card post-section series-panel" aria-labelledby="post-series">
      <h2 id="post-series" className="series-title">
        <RepeatIcon size={14} decorative />
        Repeating
      </h2>
      {body}
      <ConfirmDialog
        open={asking}
        title="Stop repeating?"
        description="No more posts are made from it, and its posts not yet published (queued and drafts, this one too if it is not published) are deleted. Published posts stay, with their history."
        cancel="Keep repeating"
        confirm="Stop repeating"
        onCancel={() => setAsking(false)}
        onConfirm={() => stop.mutate(seriesId)}
      />
    </section>
  );
}

/** Change the time, days, spacing or text from this occurrence on (a new series starts here). */
function EditFollowing({ series, post, tz, onCancel, onSaved }: { series: SeriesDetail; post: PostDetail; tz: string; onCancel: () => void; onSaved: (firstPostId: string | undefined) => void }) {
  const integrations = useIntegrations();
  const rule = series.rule;
  const startDate = partsInZone(post.publishDate, rule.timeZone).date;
  const [time, setTime] = useState(rule.time);
  const [interval, setInterval] = useState(rule.interval);
  const [weekdays, setWeekdays] = useState<Weekday[]>(rule.weekdays && rule.weekdays.length > 0 ? rule.weekdays : [weekdayOf(rule.startDate)]);
  const posts = templatePosts(series.template);
  const texts = posts.map((p) => htmlToPlain(p.value[0]?.content ?? ''));
  const shared = texts.every((t) => t === texts[0]);
  const [edited, setEdited] = useState<string[]>(shared ? [texts[0] ?? ''] : texts);
  const save = useEditFollowing(series.id, (res) => onSaved((res as { occurrences?: { posts: { postId: string }[] }[] }).occurrences?.[0]?.posts[0]?.postId));

  const fields = save.error instanceof ApiFailure ? (save.error.body.fields ?? []) : [];
  const fieldError = (re: RegExp) => fields.find((f) => re.test(f.path))?.message;
  const nameOf = (id: string) => integrations.data?.find((c) => c.id === id)?.name ?? 'a channel';

  function submit(e: FormEvent) {
    e.preventDefault();
    const ruleChanged = time !== rule.time || interval !== rule.interval || (rule.frequency === 'weekly' && WEEKDAYS.some((w) => weekdays.includes(w.code) !== (rule.weekdays ?? [weekdayOf(rule.startDate)]).includes(w.code)));
    const textChanged = shared ? edited[0] !== texts[0] : edited.some((t, i) => t !== texts[i]);
    const body: { fromPostId: string; rule?: SeriesRule; posts?: typeof posts } = { fromPostId: post.id };
    if (ruleChanged) {
      // the new series starts on this occurrence's day; a count left is what the old one had left
      const index = series.nextOccurrences.find((o) => o.posts.some((p) => p.postId === post.id))?.index;
      const next: SeriesRule = { ...rule, time, interval, startDate };
      if (rule.frequency === 'weekly') next.weekdays = WEEKDAYS.map((w) => w.code).filter((c) => weekdays.includes(c));
      if (rule.count !== undefined && index !== undefined) next.count = Math.max(1, rule.count - index);
      body.rule = next;
    }
    if (textChanged) {
      body.posts = posts.map((p, i) => {
        const text = shared ? edited[0]! : edited[i]!;
        const [first, ...rest] = p.value;
        return { ...p, value: [{ ...first, content: textToHtml(text) }, ...rest] };
      });
    }
    if (!ruleChanged && !textChanged) {
      onCancel();
      return;
    }
    save.mutate(body as Parameters<typeof save.mutate>[0]);
  }

  return (
    <form className="series-edit" onSubmit={submit} aria-label="Edit this and following">
      <p className="hint">
        From this post on ({formatDateTime(post.publishDate, tz)}); the posts before it stay as they are.
      </p>
      <div className="series-edit-row">
        <Field label={`Time (${rule.timeZone})`} error={fieldError(/^rule\.time$/)}>
          {(p) => <input {...p} type="time" className="input" required value={time} onChange={(e) => setTime(e.target.value)} />}
        </Field>
        <Field label={`Every how many ${rule.frequency === 'daily' ? 'days' : rule.frequency === 'weekly' ? 'weeks' : 'months'}`} error={fieldError(/^rule\.interval$/)}>
          {(p) => <input {...p} type="number" min={1} max={365} required className="input series-num" value={Number.isNaN(interval) ? '' : interval} onChange={(e) => setInterval(e.target.valueAsNumber)} />}
        </Field>
      </div>
      {rule.frequency === 'weekly' ? (
        <fieldset className="series-days">
          <legend>On</legend>
          {WEEKDAYS.map((w) => {
            const on = weekdays.includes(w.code);
            return (
              <label key={w.code} className={`series-day${on ? ' on' : ''}`}>
                <input type="checkbox" checked={on} disabled={on && weekdays.length === 1} onChange={() => setWeekdays(on ? weekdays.filter((d) => d !== w.code) : [...weekdays, w.code])} aria-label={w.long} />
                <span aria-hidden="true">{w.short}</span>
              </label>
            );
          })}
          {fieldError(/^rule\.weekdays$/) ? (
            <p className="error" role="alert">
              {fieldError(/^rule\.weekdays$/)}
            </p>
          ) : null}
        </fieldset>
      ) : null}
      {edited.map((t, i) => (
        <Field key={i} label={shared ? 'Text' : `Text for ${nameOf(posts[i]!.integration.id)}`} error={fieldError(new RegExp(`^posts\\.${shared ? '\\d+' : i}\\.value\\.0\\.content$`))}>
          {(p) => <textarea {...p} className="input series-text" rows={4} value={t} onChange={(e) => setEdited(edited.map((x, j) => (j === i ? e.target.value : x)))} />}
        </Field>
      ))}
      {save.error && !(fields.length > 0 && fields.every((f) => /^(rule\.(time|interval|weekdays)|posts\.\d+\.value\.0\.content)$/.test(f.path))) ? <ErrorNotice error={save.error} /> : null}
      <div className="series-actions">
        <Button type="submit" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Save this and following'}
        </Button>
        <Button variant="secondary" onClick={onCancel} disabled={save.isPending}>
          Cancel
        </Button>
      </div>
    </form>
  );
}

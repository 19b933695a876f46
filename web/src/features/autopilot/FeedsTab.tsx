import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { api, unwrap } from '../../api/client.js';
import { useIntegrations, type Integration } from '../../api/queries.js';
import type { components } from '../../api/schema.js';
import { ConfirmDialog } from '../../components/ConfirmDialog.js';
import { Button, EmptyState, ErrorNotice, Field, Modal, Notice, Spinner, TextInput, UrlInput } from '../../components/ui.js';
import { fieldError, onlyFieldErrors } from '../settings/errors.js';
import { ChannelChecklist, ChannelChips, channelLabel, When } from './EvergreenFeedsCommon.js';

type Feed = components['schemas']['Feed'];
type FeedItem = components['schemas']['FeedItem'];
type Mode = Feed['mode'];

const keys = {
  all: ['feeds'] as const,
  items: (id: string) => ['feeds', id, 'items'] as const,
};

const MODE_LABEL: Record<Mode, string> = { now: 'Post at once', slot: 'Next free posting time', draft: 'Draft for review' };
const MODE_HINT: Record<Mode, string> = {
  now: 'Each new item is published as soon as it is seen.',
  slot: "Each new item is scheduled at the channel's next free posting time.",
  draft: 'Each new item becomes a draft you review and schedule yourself.',
};
const OUTCOME_LABEL: Record<FeedItem['outcome'], string> = { posted: 'Posted', skipped: 'Skipped', draft: 'Draft made', failed: 'Failed', pending: 'Posting…' };
const OUTCOME_CLASS: Record<FeedItem['outcome'], string> = { posted: 'ap-badge-ok', skipped: 'ap-badge-muted', draft: 'ap-badge-muted', failed: 'ap-badge-bad', pending: 'ap-badge-muted' };
const PLACEHOLDERS = [
  ['{title}', "the item's title"],
  ['{link}', 'its link (kept when the text is cut)'],
  ['{summary}', 'its summary, as text'],
  ['{author}', 'its author'],
  ['{hashtags}', 'its categories as #CamelCase'],
] as const;

/** Feeds (mounted at /autopilot/feeds/*): RSS, Atom and JSON feeds whose new items are posted on channels. */
export function FeedsTab() {
  const feeds = useQuery({ queryKey: keys.all, queryFn: () => unwrap(api.GET('/feeds')) });
  const integrations = useIntegrations();
  const channels = new Map((integrations.data ?? []).map((i) => [i.id, i]));
  const [editing, setEditing] = useState<Feed | 'new' | null>(null);

  return (
    <section aria-labelledby="feeds-title">
      <div className="ap-toolbar">
        <div>
          <h2 id="feeds-title" className="visually-hidden">
            Feeds
          </h2>
          <p className="hint">Tidings reads each feed (RSS, Atom or JSON Feed) every few minutes and posts its new items on the channels you pick, with your template.</p>
        </div>
        <Button onClick={() => setEditing('new')}>Add feed</Button>
      </div>
      {feeds.isPending ? (
        <Spinner label="Loading feeds" />
      ) : feeds.error ? (
        <ErrorNotice error={feeds.error} />
      ) : feeds.data.feeds.length === 0 ? (
        <EmptyState title="No feeds yet">
          <p>Add your blog&rsquo;s or newsletter&rsquo;s feed and its new posts are shared for you.</p>
        </EmptyState>
      ) : (
        <ul className="ap-list" aria-label="Feeds">
          {feeds.data.feeds.map((f) => (
            <FeedCard key={f.id} feed={f} channels={channels} onEdit={() => setEditing(f)} />
          ))}
        </ul>
      )}
      <Modal open={editing !== null} onOpenChange={(o) => (o ? undefined : setEditing(null))} title={editing === 'new' ? 'Add a feed' : editing ? `Edit “${feedName(editing)}”` : ''} wide>
        {editing !== null ? <FeedForm feed={editing === 'new' ? undefined : editing} onDone={() => setEditing(null)} /> : null}
      </Modal>
    </section>
  );
}

function feedName(feed: Feed): string {
  return feed.title?.trim() || feed.url;
}

function FeedStatus({ feed }: { feed: Feed }) {
  if (feed.status === 'failing') {
    return (
      <Notice kind="bad">
        <strong>Failing:</strong> the last {feed.failures} polls failed{feed.lastErrorAt ? <> (last <When iso={feed.lastErrorAt} />)</> : null}: {feed.lastError ?? 'no reason given'}. Next try <When iso={feed.nextPollAt} />.
      </Notice>
    );
  }
  if (feed.failures > 0) {
    return (
      <Notice kind="info">
        The last {feed.failures === 1 ? 'poll' : `${feed.failures} polls`} failed{feed.lastErrorAt ? <> (<When iso={feed.lastErrorAt} />)</> : null}: {feed.lastError ?? 'no reason given'}. Retrying <When iso={feed.nextPollAt} />.
      </Notice>
    );
  }
  return null;
}

function FeedCard({ feed, channels, onEdit }: { feed: Feed; channels: Map<string, Integration>; onEdit: () => void }) {
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const name = feedName(feed);
  const poll = useMutation({
    mutationFn: () => unwrap(api.POST('/feeds/{id}/poll', { params: { path: { id: feed.id } } })),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: keys.all });
    },
  });
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/feeds/{id}', { params: { path: { id: feed.id } } })),
    onSuccess: async () => {
      setDeleting(false);
      await queryClient.invalidateQueries({ queryKey: keys.all, exact: true });
    },
  });
  const panelId = `feed-items-${feed.id}`;

  return (
    <li className="ap-card">
      <div className="ap-card-head">
        <div className="ap-title">
          <h3>{name}</h3>
          {feed.status === 'failing' ? <span className="badge ap-badge-bad">Failing</span> : feed.failures > 0 ? <span className="badge ap-badge-muted">Retrying</span> : <span className="badge ap-badge-ok">OK</span>}
        </div>
        <div className="ap-actions">
          <Button variant="secondary" onClick={() => poll.mutate()} disabled={poll.isPending} aria-label={`Poll now: ${name}`}>
            {poll.isPending ? 'Polling…' : 'Poll now'}
          </Button>
          <Button variant="secondary" onClick={onEdit} aria-label={`Edit ${name}`}>
            Edit
          </Button>
          <Button variant="danger" onClick={() => setDeleting(true)} aria-label={`Delete ${name}`}>
            Delete
          </Button>
        </div>
      </div>
      <p className="ap-url">
        <a href={feed.url} target="_blank" rel="noreferrer noopener">
          {feed.url}
        </a>
      </p>
      <dl className="ap-meta">
        <div>
          <dt>Channels</dt>
          <dd>
            <ChannelChips ids={feed.integrationIds} channels={channels} />
          </dd>
        </div>
        <div>
          <dt>New items</dt>
          <dd>{MODE_LABEL[feed.mode]}</dd>
        </div>
        <div>
          <dt>Last successful poll</dt>
          <dd>
            <When iso={feed.lastSuccessAt} empty="Not yet" />
          </dd>
        </div>
        <div>
          <dt>Next poll</dt>
          <dd>
            <When iso={feed.nextPollAt} /> <span className="ap-muted">(every {feed.pollMinutes} min)</span>
          </dd>
        </div>
      </dl>
      <FeedStatus feed={feed} />
      {poll.isSuccess ? (
        <Notice kind={poll.data.failures > 0 ? 'bad' : 'ok'}>
          {poll.data.failures > 0 ? `Polled: it failed (${poll.data.lastError ?? 'no reason given'}).` : 'Polled: new items, if any, are in the list below.'}{' '}
          <Button variant="ghost" className="ap-small" onClick={() => poll.reset()}>
            Dismiss
          </Button>
        </Notice>
      ) : null}
      {poll.error ? <ErrorNotice error={poll.error} /> : null}
      {remove.error ? <ErrorNotice error={remove.error} /> : null}
      <Button variant="ghost" aria-expanded={open} aria-controls={panelId} onClick={() => setOpen((o) => !o)}>
        {open ? '▾ Hide recent items' : '▸ Recent items'}
      </Button>
      {open ? (
        <div id={panelId}>
          <FeedItems feed={feed} channels={channels} />
        </div>
      ) : null}
      <ConfirmDialog
        open={deleting}
        title={`Stop autoposting “${name}”?`}
        description="The feed is removed and its new items are no longer posted. The posts it already made stay."
        confirm={remove.isPending ? 'Deleting…' : 'Delete feed'}
        cancel="Keep it"
        onConfirm={() => remove.mutate()}
        onCancel={() => {
          setDeleting(false);
          remove.reset();
        }}
      />
    </li>
  );
}

function FeedItems({ feed, channels }: { feed: Feed; channels: Map<string, Integration> }) {
  const items = useQuery({ queryKey: keys.items(feed.id), queryFn: () => unwrap(api.GET('/feeds/{id}/items', { params: { path: { id: feed.id }, query: { limit: 50 } } })) });
  if (items.isPending) return <Spinner label="Loading recent items" />;
  if (items.error) return <ErrorNotice error={items.error} />;
  if (items.data.items.length === 0) return <p className="ap-muted">No items seen yet.</p>;
  return (
    <div className="ap-table-wrap">
      <table className="table">
        <caption className="visually-hidden">Recent items of {feedName(feed)}</caption>
        <thead>
          <tr>
            <th scope="col">Item</th>
            <th scope="col">Published</th>
            <th scope="col">State</th>
            <th scope="col">Posts</th>
          </tr>
        </thead>
        <tbody>
          {items.data.items.map((it) => (
            <tr key={it.key}>
              <td className="ap-url">
                {it.link ? (
                  <a href={it.link} target="_blank" rel="noreferrer noopener">
                    {it.title || it.link}
                  </a>
                ) : (
                  it.title || <span className="ap-muted">{it.key}</span>
                )}
                {it.error ? (
                  <p className="error" role="note">
                    {it.error}
                  </p>
                ) : null}
              </td>
              <td>
                <When iso={it.publishedAt ?? it.firstSeenAt} />
              </td>
              <td>
                <span className={`badge ${OUTCOME_CLASS[it.outcome]}`}>{OUTCOME_LABEL[it.outcome]}</span>
              </td>
              <td>
                {it.posts.length === 0 ? (
                  <span className="ap-muted">—</span>
                ) : (
                  <ul className="ap-chips" aria-label="Posts made">
                    {it.posts.map((p) => (
                      <li key={p.postId}>
                        <Link to={`/posts/${p.postId}`} aria-label={`Post on ${channelLabel(channels, p.integration)}`}>
                          {channels.get(p.integration)?.name ?? 'Post'}
                        </Link>
                      </li>
                    ))}
                  </ul>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const FEED_FIELDS = ['url', 'integrationIds', 'template', 'mode', 'backfill', 'pollMinutes'] as const;

function intError(text: string, min: number, max: number): string | undefined {
  if (!/^\d+$/.test(text.trim())) return 'A whole number';
  const n = Number(text);
  return n < min || n > max ? `From ${min} to ${max}` : undefined;
}

function FeedForm({ feed, onDone }: { feed?: Feed; onDone: () => void }) {
  const queryClient = useQueryClient();
  const integrations = useIntegrations();
  const template = useRef<HTMLTextAreaElement>(null);
  const [url, setUrl] = useState(feed?.url ?? '');
  const [channels, setChannels] = useState<string[]>(feed?.integrationIds ?? []);
  const [text, setText] = useState(feed?.template ?? '{title} {link}');
  const [mode, setMode] = useState<Mode>(feed?.mode ?? 'now');
  const [backfill, setBackfill] = useState('0');
  const [pollMinutes, setPollMinutes] = useState(String(feed?.pollMinutes ?? 15));
  const [checked, setChecked] = useState(false);
  const local: Record<string, string | undefined> = {
    url: feed || url.trim() ? undefined : 'Required',
    integrationIds: channels.length === 0 ? 'Tick at least one channel' : undefined,
    backfill: feed ? undefined : intError(backfill, 0, 50),
    pollMinutes: intError(pollMinutes, 5, 1440),
  };

  const save = useMutation({
    mutationFn: () => {
      const common = { integrationIds: channels, template: text, mode, pollMinutes: Number(pollMinutes) };
      return feed
        ? unwrap(api.PATCH('/feeds/{id}', { params: { path: { id: feed.id } }, body: common }))
        : unwrap(api.POST('/feeds', { body: { url: url.trim(), ...common, backfill: Number(backfill) } }));
    },
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: keys.all });
      onDone();
    },
  });
  const err = (f: (typeof FEED_FIELDS)[number]) => (checked ? local[f] : undefined) ?? fieldError(save.error, f);

  function submit(e: FormEvent) {
    e.preventDefault();
    setChecked(true);
    if (Object.values(local).some(Boolean)) return;
    save.mutate();
  }

  function insert(token: string) {
    const el = template.current;
    const at = el ? el.selectionStart : text.length;
    const end = el ? el.selectionEnd : text.length;
    const next = text.slice(0, at) + token + text.slice(end);
    setText(next);
    requestAnimationFrame(() => {
      el?.focus();
      el?.setSelectionRange(at + token.length, at + token.length);
    });
  }

  return (
    <form onSubmit={submit} noValidate>
      {feed ? (
        <p className="ap-url">
          <strong>Feed:</strong> {feed.url}
          <span className="hint"> (to read another address, add a new feed)</span>
        </p>
      ) : (
        <Field label="Feed URL" hint="An RSS, Atom or JSON Feed address (http or https, a public address). Tidings reads it once now to check it." error={err('url')}>
          {(p) => <UrlInput {...p} value={url} placeholder="https://example.com/feed.xml" onValue={setUrl} onChanged={() => fieldError(save.error, 'url') && save.reset()} />}
        </Field>
      )}
      <ChannelChecklist
        legend="Channels"
        hint="New items are posted on each ticked channel (at least one)."
        value={channels}
        onChange={setChannels}
        error={err('integrationIds')}
        integrations={integrations}
      />
      <Field
        label="Post text"
        hint={
          <>
            Placeholders are replaced by each item&rsquo;s own. The text is cut to each platform&rsquo;s length, keeping the link.
          </>
        }
        error={err('template')}
      >
        {(p) => <textarea {...p} ref={template} value={text} rows={3} maxLength={5000} onChange={(e) => setText(e.target.value)} />}
      </Field>
      <div className="ap-placeholders" role="group" aria-label="Insert a placeholder">
        {PLACEHOLDERS.map(([token, what]) => (
          <Button key={token} variant="secondary" className="ap-small" onClick={() => insert(token)} title={what} aria-label={`Insert ${token}: ${what}`}>
            {token}
          </Button>
        ))}
      </div>
      <div className="ap-row">
        <Field label="New items" hint={MODE_HINT[mode]} error={err('mode')}>
          {(p) => (
            <select {...p} value={mode} onChange={(e) => setMode(e.target.value as Mode)}>
              {(Object.keys(MODE_LABEL) as Mode[]).map((m) => (
                <option key={m} value={m}>
                  {MODE_LABEL[m]}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Check every (minutes)" hint="5 to 1440." error={err('pollMinutes')}>
          {(p) => <TextInput {...p} type="number" inputMode="numeric" min={5} max={1440} value={pollMinutes} onChange={(e) => setPollMinutes(e.target.value)} />}
        </Field>
        {feed ? null : (
          <Field label="Post the newest now" hint="0 to 50. With 0, the items already in the feed are skipped and only new ones are posted." error={err('backfill')}>
            {(p) => <TextInput {...p} type="number" inputMode="numeric" min={0} max={50} value={backfill} onChange={(e) => setBackfill(e.target.value)} />}
          </Field>
        )}
      </div>
      {save.error && !onlyFieldErrors(save.error, FEED_FIELDS) ? <ErrorNotice error={save.error} /> : null}
      <div className="ap-form-actions">
        <Button variant="ghost" onClick={onDone} disabled={save.isPending}>
          Cancel
        </Button>
        <Button type="submit" disabled={save.isPending}>
          {save.isPending ? (feed ? 'Saving…' : 'Checking the feed…') : feed ? 'Save changes' : 'Add feed'}
        </Button>
      </div>
    </form>
  );
}

import { useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { Link, Route, Routes, useNavigate, useParams } from 'react-router';
import { api, ApiFailure, unwrap } from '../../api/client.js';
import { useIntegrations, type Integration } from '../../api/queries.js';
import type { components } from '../../api/schema.js';
import { ConfirmDialog } from '../../components/ConfirmDialog.js';
import { Button, EmptyState, ErrorNotice, Field, Modal, Notice, Spinner, TextInput } from '../../components/ui.js';
import { fieldError, onlyFieldErrors } from '../settings/errors.js';
import { ChannelChecklist, ChannelChips, channelLabel, When } from './EvergreenFeedsCommon.js';

type Queue = components['schemas']['EvergreenQueue'];
type Item = components['schemas']['EvergreenItem'];
type FillResult = Awaited<ReturnType<typeof fillQueue>>;

const keys = {
  all: ['evergreen'] as const,
  queue: (id: string) => ['evergreen', id] as const,
  items: (id: string) => ['evergreen', id, 'items'] as const,
  plan: (id: string, days: number) => ['evergreen', id, 'plan', days] as const,
};

const ORDER_LABEL: Record<Queue['order'], string> = { sequence: 'In turn', shuffle: 'Shuffled' };

function fillQueue(id: string) {
  return unwrap(api.POST('/evergreen/{id}/fill', { params: { path: { id } } }));
}

function useChannelMap() {
  const integrations = useIntegrations();
  return { integrations, channels: new Map((integrations.data ?? []).map((i) => [i.id, i])) };
}

/** Evergreen queues (mounted at /autopilot/evergreen/*): the list, and one queue at /autopilot/evergreen/:id. */
export function EvergreenTab() {
  return (
    <Routes>
      <Route index element={<QueueList />} />
      <Route path=":id" element={<QueueDetail />} />
    </Routes>
  );
}

function QueueList() {
  const queues = useQuery({ queryKey: keys.all, queryFn: () => unwrap(api.GET('/evergreen')) });
  const { channels } = useChannelMap();
  const [creating, setCreating] = useState(false);
  const navigate = useNavigate();
  // the queue view carries no item count: each queue's items are read for it
  const counts = useQueries({
    queries: (queues.data ?? []).map((q) => ({ queryKey: keys.items(q.id), queryFn: () => unwrap(api.GET('/evergreen/{id}/items', { params: { path: { id: q.id } } })) })),
  });

  return (
    <section aria-labelledby="evergreen-title">
      <div className="ap-toolbar">
        <div>
          <h2 id="evergreen-title" className="visually-hidden">
            Evergreen queues
          </h2>
          <p className="hint">
            A queue holds posts worth repeating. Tidings fills its channels&rsquo; free posting times with them, a few days ahead, and never repeats an item on a channel within the gap you choose.
          </p>
        </div>
        <Button onClick={() => setCreating(true)}>New queue</Button>
      </div>
      {queues.isPending ? (
        <Spinner label="Loading queues" />
      ) : queues.error ? (
        <ErrorNotice error={queues.error} />
      ) : queues.data.length === 0 ? (
        <EmptyState title="No evergreen queues yet">
          <p>Create a queue, add the posts to recycle, and Tidings keeps your channels&rsquo; free slots filled.</p>
        </EmptyState>
      ) : (
        <ul className="ap-list" aria-label="Evergreen queues">
          {queues.data.map((q, i) => (
            <li key={q.id} className="ap-card">
              <div className="ap-card-head">
                <div className="ap-title">
                  <h3>
                    <Link to={`/autopilot/evergreen/${q.id}`}>{q.name}</Link>
                  </h3>
                  {q.enabled ? <span className="badge ap-badge-ok">Filling</span> : <span className="badge ap-badge-muted">Stopped</span>}
                  {q.channels.some((c) => c.paused) ? <span className="badge ap-badge-bad">Channel paused</span> : null}
                </div>
                <div className="ap-actions">
                  <Link className="btn btn-secondary" to={`/autopilot/evergreen/${q.id}`} aria-label={`Open ${q.name}: items, plan, fill`}>
                    Open
                  </Link>
                </div>
              </div>
              <QueueMeta queue={q} channels={channels} itemCount={counts[i]?.data?.length} />
              <ChannelStates queue={q} channels={channels} />
            </li>
          ))}
        </ul>
      )}
      <Modal open={creating} onOpenChange={setCreating} title="New evergreen queue" wide>
        {creating ? (
          <QueueForm
            onCancel={() => setCreating(false)}
            onSaved={(q) => {
              setCreating(false);
              void navigate(`/autopilot/evergreen/${q.id}`);
            }}
          />
        ) : null}
      </Modal>
    </section>
  );
}

function QueueMeta({ queue, channels, itemCount }: { queue: Queue; channels: Map<string, Integration>; itemCount?: number }) {
  return (
    <dl className="ap-meta">
      <div>
        <dt>Channels</dt>
        <dd>
          <ChannelChips ids={queue.integrations} channels={channels} emptyMeansAll />
        </dd>
      </div>
      <div>
        <dt>Order</dt>
        <dd>{ORDER_LABEL[queue.order]}</dd>
      </div>
      <div>
        <dt>Repeat gap</dt>
        <dd>{queue.minGapDays === 0 ? 'None' : `${queue.minGapDays} ${queue.minGapDays === 1 ? 'day' : 'days'}`}</dd>
      </div>
      <div>
        <dt>Fills ahead</dt>
        <dd>
          {queue.horizonDays} {queue.horizonDays === 1 ? 'day' : 'days'}
        </dd>
      </div>
      <div>
        <dt>Items</dt>
        <dd>{itemCount === undefined ? <span className="ap-muted">…</span> : itemCount}</dd>
      </div>
    </dl>
  );
}

/** The channels paused in this queue after failures (each with Resume), and those failing but not yet paused. */
function ChannelStates({ queue, channels }: { queue: Queue; channels: Map<string, Integration> }) {
  const queryClient = useQueryClient();
  const resume = useMutation({
    mutationFn: (integrationId: string) => unwrap(api.POST('/evergreen/{id}/channels/{integrationId}/resume', { params: { path: { id: queue.id, integrationId } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keys.all }),
  });
  const paused = queue.channels.filter((c) => c.paused);
  const failing = queue.channels.filter((c) => !c.paused && c.consecutiveFailures > 0);
  if (paused.length === 0 && failing.length === 0) return null;
  return (
    <div>
      {paused.map((c) => (
        <Notice key={c.integrationId} kind="bad">
          <strong>{channelLabel(channels, c.integrationId)} is paused in this queue</strong> after {c.consecutiveFailures} failed {c.consecutiveFailures === 1 ? 'post' : 'posts'} in a row
          {c.pausedAt ? (
            <>
              {' '}
              (<When iso={c.pausedAt} />)
            </>
          ) : null}
          {c.pausedReason ? `: ${c.pausedReason}` : ''}. Its slots are not filled until you resume it.{' '}
          <Button
            variant="secondary"
            className="ap-small"
            disabled={resume.isPending && resume.variables === c.integrationId}
            onClick={() => resume.mutate(c.integrationId)}
            aria-label={`Resume ${channelLabel(channels, c.integrationId)} in ${queue.name}`}
          >
            {resume.isPending && resume.variables === c.integrationId ? 'Resuming…' : 'Resume'}
          </Button>
        </Notice>
      ))}
      {failing.map((c) => (
        <p key={c.integrationId} className="hint">
          {channelLabel(channels, c.integrationId)}: {c.consecutiveFailures} failed {c.consecutiveFailures === 1 ? 'post' : 'posts'} in a row (paused at 3).
        </p>
      ))}
      {resume.error ? <ErrorNotice error={resume.error} /> : null}
    </div>
  );
}

const QUEUE_FIELDS = ['name', 'integrations', 'order', 'minGapDays', 'horizonDays', 'enabled'] as const;

/** Whole number in [min, max], or the message to show. */
function intError(text: string, min: number, max: number): string | undefined {
  if (!/^\d+$/.test(text.trim())) return 'A whole number';
  const n = Number(text);
  return n < min || n > max ? `From ${min} to ${max}` : undefined;
}

function QueueForm({ queue, onSaved, onCancel }: { queue?: Queue; onSaved: (q: Queue) => void; onCancel: () => void }) {
  const queryClient = useQueryClient();
  const { integrations } = useChannelMap();
  const [name, setName] = useState(queue?.name ?? '');
  const [channels, setChannels] = useState<string[]>(queue?.integrations ?? []);
  const [order, setOrder] = useState<Queue['order']>(queue?.order ?? 'sequence');
  const [gap, setGap] = useState(String(queue?.minGapDays ?? 30));
  const [horizon, setHorizon] = useState(String(queue?.horizonDays ?? 7));
  const [enabled, setEnabled] = useState(queue?.enabled ?? true);
  const [checked, setChecked] = useState(false);
  const local = { name: name.trim() ? undefined : 'Required', minGapDays: intError(gap, 0, 3650), horizonDays: intError(horizon, 1, 90) };

  const save = useMutation({
    mutationFn: () => {
      const body = { name: name.trim(), integrations: channels, order, minGapDays: Number(gap), horizonDays: Number(horizon), enabled };
      return queue ? unwrap(api.PATCH('/evergreen/{id}', { params: { path: { id: queue.id } }, body })) : unwrap(api.POST('/evergreen', { body }));
    },
    onSuccess: async (q) => {
      queryClient.setQueryData(keys.queue(q.id), q);
      await queryClient.invalidateQueries({ queryKey: keys.all });
      onSaved(q);
    },
  });

  function submit(e: FormEvent) {
    e.preventDefault();
    setChecked(true);
    if (local.name || local.minGapDays || local.horizonDays) return;
    save.mutate();
  }
  const err = (f: keyof typeof local | 'order' | 'integrations') => (checked ? (local as Record<string, string | undefined>)[f] : undefined) ?? fieldError(save.error, f);

  return (
    <form onSubmit={submit} noValidate>
      <Field label="Name" error={err('name')}>
        {(p) => <TextInput {...p} value={name} maxLength={100} required autoComplete="off" placeholder="e.g. Best of the blog" onChange={(e) => setName(e.target.value)} />}
      </Field>
      <ChannelChecklist
        legend="Channels"
        hint={channels.length === 0 ? 'None ticked: the queue fills every channel, including channels connected later.' : `Fills the ${channels.length} ticked ${channels.length === 1 ? 'channel' : 'channels'}.`}
        value={channels}
        onChange={setChannels}
        error={err('integrations')}
        integrations={integrations}
      />
      <div className="ap-row">
        <Field label="Order" hint="In turn: items by position, round robin. Shuffled: a random eligible item per slot." error={err('order')}>
          {(p) => (
            <select {...p} value={order} onChange={(e) => setOrder(e.target.value as Queue['order'])}>
              <option value="sequence">In turn</option>
              <option value="shuffle">Shuffled</option>
            </select>
          )}
        </Field>
        <Field label="Repeat gap (days)" hint="An item is not posted again on a channel within this many days (0 to 3650)." error={err('minGapDays')}>
          {(p) => <TextInput {...p} type="number" inputMode="numeric" min={0} max={3650} value={gap} onChange={(e) => setGap(e.target.value)} />}
        </Field>
        <Field label="Fill ahead (days)" hint="How far ahead free slots are filled (1 to 90)." error={err('horizonDays')}>
          {(p) => <TextInput {...p} type="number" inputMode="numeric" min={1} max={90} value={horizon} onChange={(e) => setHorizon(e.target.value)} />}
        </Field>
      </div>
      <label className="ap-check">
        <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} />
        <span>
          Filling
          <span className="ap-check-hint">Unticked: the queue keeps its items but fills nothing (&ldquo;Fill now&rdquo; still works).</span>
        </span>
      </label>
      {save.error && !onlyFieldErrors(save.error, QUEUE_FIELDS) ? <ErrorNotice error={save.error} /> : null}
      <div className="ap-form-actions">
        <Button variant="ghost" onClick={onCancel} disabled={save.isPending}>
          Cancel
        </Button>
        <Button type="submit" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : queue ? 'Save changes' : 'Create queue'}
        </Button>
      </div>
    </form>
  );
}

function QueueDetail() {
  const { id = '' } = useParams();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const { channels } = useChannelMap();
  const queue = useQuery({ queryKey: keys.queue(id), queryFn: () => unwrap(api.GET('/evergreen/{id}', { params: { path: { id } } })) });
  const items = useQuery({ queryKey: keys.items(id), queryFn: () => unwrap(api.GET('/evergreen/{id}/items', { params: { path: { id } } })) });
  const [editing, setEditing] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const fill = useMutation({
    mutationFn: () => fillQueue(id),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keys.queue(id) }),
  });
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/evergreen/{id}', { params: { path: { id } } })),
    onSuccess: async () => {
      setDeleting(false);
      queryClient.removeQueries({ queryKey: keys.queue(id) });
      await queryClient.invalidateQueries({ queryKey: keys.all, exact: true });
      void navigate('/autopilot/evergreen');
    },
  });
  const back = (
    <Link to="/autopilot/evergreen" className="ap-back">
      ← All queues
    </Link>
  );

  if (queue.isPending) return <Spinner label="Loading the queue" />;
  if (queue.error) {
    return (
      <div>
        {back}
        {queue.error instanceof ApiFailure && queue.error.status === 404 ? <Notice kind="bad">This queue does not exist (any more).</Notice> : <ErrorNotice error={queue.error} />}
      </div>
    );
  }
  const q = queue.data;
  return (
    <section aria-labelledby="queue-title">
      {back}
      <div className="ap-card">
        <div className="ap-card-head">
          <div className="ap-title">
            <h2 id="queue-title">{q.name}</h2>
            {q.enabled ? <span className="badge ap-badge-ok">Filling</span> : <span className="badge ap-badge-muted">Stopped</span>}
          </div>
          <div className="ap-actions">
            <Button onClick={() => fill.mutate()} disabled={fill.isPending}>
              {fill.isPending ? 'Filling…' : 'Fill now'}
            </Button>
            <Button variant="secondary" onClick={() => setEditing(true)} aria-label={`Edit the queue ${q.name}`}>
              Edit
            </Button>
            <Button variant="danger" onClick={() => setDeleting(true)} aria-label={`Delete the queue ${q.name}`}>
              Delete
            </Button>
          </div>
        </div>
        <QueueMeta queue={q} channels={channels} itemCount={items.data?.length} />
        <ChannelStates queue={q} channels={channels} />
        {fill.error ? <ErrorNotice error={fill.error} /> : null}
        {fill.data ? <FillOutcome result={fill.data} items={items.data ?? []} channels={channels} onDismiss={() => fill.reset()} /> : null}
      </div>

      <ItemsSection queueId={id} items={items} />
      <PlanSection queueId={id} items={items.data ?? []} channels={channels} />

      <Modal open={editing} onOpenChange={setEditing} title={`Edit “${q.name}”`} wide>
        {editing ? <QueueForm queue={q} onCancel={() => setEditing(false)} onSaved={() => setEditing(false)} /> : null}
      </Modal>
      <ConfirmDialog
        open={deleting}
        title={`Delete the queue “${q.name}”?`}
        description="Its items go with it. The posts it already scheduled stay in the calendar: delete them there if you do not want them."
        confirm={remove.isPending ? 'Deleting…' : 'Delete queue'}
        cancel="Keep it"
        onConfirm={() => remove.mutate()}
        onCancel={() => {
          setDeleting(false);
          remove.reset();
        }}
      />
      {remove.error ? <ErrorNotice error={remove.error} /> : null}
    </section>
  );
}

function excerpt(text: string | null | undefined, max = 90): string {
  if (!text) return '';
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

function variationLabel(v: number | null): string {
  return v === null ? '' : v === 0 ? 'main text' : `variation ${v}`;
}

function FillOutcome({ result, items, channels, onDismiss }: { result: FillResult; items: Item[]; channels: Map<string, Integration>; onDismiss: () => void }) {
  const byId = new Map(items.map((i) => [i.id, i]));
  const n = result.created.length;
  return (
    <div className="ap-section" aria-live="polite">
      <Notice kind={n > 0 ? 'ok' : 'info'}>
        {n === 0 ? 'Nothing to fill: no free slot got a post.' : `Scheduled ${n} ${n === 1 ? 'post' : 'posts'}.`}
        {result.empty.length > 0 ? ` ${result.empty.length} free ${result.empty.length === 1 ? 'slot stays' : 'slots stay'} empty: every item was used within the repeat gap.` : ''}{' '}
        <Button variant="ghost" className="ap-small" onClick={onDismiss}>
          Dismiss
        </Button>
      </Notice>
      {n > 0 ? (
        <div className="ap-table-wrap">
          <table className="table">
            <caption className="visually-hidden">Posts scheduled by this fill</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Channel</th>
                <th scope="col">Item</th>
                <th scope="col">Post</th>
              </tr>
            </thead>
            <tbody>
              {result.created.map((c) => (
                <tr key={c.postId}>
                  <td>
                    <When iso={c.at} />
                  </td>
                  <td>{channelLabel(channels, c.integrationId)}</td>
                  <td>
                    {excerpt(byId.get(c.itemId)?.content) || <span className="ap-muted">a removed item</span>} <span className="ap-muted">({variationLabel(c.variation)})</span>
                  </td>
                  <td>
                    <Link to={`/posts/${c.postId}`}>Open</Link>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </div>
  );
}

function ItemsSection({ queueId, items }: { queueId: string; items: { isPending: boolean; error: unknown; data?: Item[] } }) {
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState<Item | 'new' | null>(null);
  const [deleting, setDeleting] = useState<Item | null>(null);
  const remove = useMutation({
    mutationFn: (itemId: string) => unwrap(api.DELETE('/evergreen/{id}/items/{itemId}', { params: { path: { id: queueId, itemId } } })),
    onSuccess: async () => {
      setDeleting(null);
      await queryClient.invalidateQueries({ queryKey: keys.queue(queueId) });
    },
  });
  const list = items.data ?? [];
  return (
    <section className="ap-section" aria-labelledby="items-title">
      <div className="ap-toolbar">
        <h3 id="items-title">Items{items.data ? ` (${list.length})` : ''}</h3>
        <Button onClick={() => setEditing('new')}>Add item</Button>
      </div>
      {items.isPending ? (
        <Spinner label="Loading items" />
      ) : items.error ? (
        <ErrorNotice error={items.error} />
      ) : list.length === 0 ? (
        <EmptyState title="No items yet">
          <p>Add the posts this queue recycles. Each can have variations, used in turn so the same words do not come back every time.</p>
        </EmptyState>
      ) : (
        <ol className="ap-item-list" aria-label="Items">
          {list.map((it, i) => (
            <li key={it.id} className="ap-item">
              <span className="ap-item-pos" aria-hidden="true">
                {i + 1}
              </span>
              <div className="ap-item-body">
                <p className="ap-text ap-clip">{it.content}</p>
                <p className="hint">
                  {it.variations.length === 0 ? 'No variations' : `${it.variations.length} ${it.variations.length === 1 ? 'variation' : 'variations'}`}
                  {it.media.length > 0 ? ` · ${it.media.length} media` : ''}
                  {Object.keys(it.settings).length > 0 ? ` · settings for ${Object.keys(it.settings).join(', ')}` : ''}
                </p>
              </div>
              <div className="ap-actions">
                <Button variant="secondary" className="ap-small" onClick={() => setEditing(it)} aria-label={`Edit item ${i + 1}`}>
                  Edit
                </Button>
                <Button variant="danger" className="ap-small" onClick={() => setDeleting(it)} aria-label={`Delete item ${i + 1}`}>
                  Delete
                </Button>
              </div>
            </li>
          ))}
        </ol>
      )}
      <Modal open={editing !== null} onOpenChange={(o) => (o ? undefined : setEditing(null))} title={editing === 'new' ? 'Add an item' : 'Edit the item'} wide>
        {editing !== null ? <ItemForm queueId={queueId} item={editing === 'new' ? undefined : editing} onDone={() => setEditing(null)} /> : null}
      </Modal>
      <ConfirmDialog
        open={deleting !== null}
        title="Remove this item from the queue?"
        description={`“${excerpt(deleting?.content, 80)}” is no longer used for new posts. Posts already made from it stay scheduled.`}
        confirm={remove.isPending ? 'Removing…' : 'Remove item'}
        cancel="Keep it"
        onConfirm={() => deleting && remove.mutate(deleting.id)}
        onCancel={() => {
          setDeleting(null);
          remove.reset();
        }}
      />
      {remove.error ? <ErrorNotice error={remove.error} /> : null}
    </section>
  );
}

function ItemForm({ queueId, item, onDone }: { queueId: string; item?: Item; onDone: () => void }) {
  const queryClient = useQueryClient();
  const id = useId();
  const [content, setContent] = useState(item?.content ?? '');
  const [variations, setVariations] = useState<string[]>(item?.variations ?? []);
  const [checked, setChecked] = useState(false);
  const save = useMutation({
    mutationFn: () => {
      const body = { content: content.trim(), variations: variations.map((v) => v.trim()).filter(Boolean) };
      return item
        ? unwrap(api.PATCH('/evergreen/{id}/items/{itemId}', { params: { path: { id: queueId, itemId: item.id } }, body }))
        : unwrap(api.POST('/evergreen/{id}/items', { params: { path: { id: queueId } }, body: { ...body, media: [], settings: {} } }));
    },
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: keys.queue(queueId) });
      onDone();
    },
  });
  const contentError = (checked && !content.trim() ? 'Required' : undefined) ?? fieldError(save.error, 'content');
  // the API names a variation by its index among those sent (empty ones are dropped before sending)
  const sentIndex = (i: number) => variations.slice(0, i).filter((v) => v.trim()).length;
  const variationError = (i: number) => (variations[i]?.trim() ? fieldError(save.error, `variations.${sentIndex(i)}`) : undefined);

  function submit(e: FormEvent) {
    e.preventDefault();
    setChecked(true);
    if (!content.trim()) return;
    save.mutate();
  }
  const shownElsewhere = save.error instanceof ApiFailure && (save.error.body.fields ?? []).length > 0 && (save.error.body.fields ?? []).every((f) => f.path === 'content' || /^variations\.\d+$/.test(f.path));

  return (
    <form onSubmit={submit} noValidate>
      <Field label="Text" hint="Checked against the rules of each channel of the queue (length, and so on)." error={contentError}>
        {(p) => <textarea {...p} value={content} rows={5} maxLength={100_000} onChange={(e) => setContent(e.target.value)} />}
      </Field>
      <fieldset className="ap-choices">
        <legend>Variations</legend>
        <p className="hint" id={`${id}-var-hint`}>
          Other wordings of the same post. Each channel gets the text, then variation 1, variation 2, … in turn. They count as the same item for the repeat gap.
        </p>
        <div className="ap-variations">
          {variations.map((v, i) => (
            <Field key={i} label={`Variation ${i + 1}`} error={variationError(i)}>
              {(p) => (
                <div className="ap-variation">
                  <textarea {...p} value={v} rows={2} onChange={(e) => setVariations((list) => list.map((x, j) => (j === i ? e.target.value : x)))} />
                  <Button variant="ghost" onClick={() => setVariations((list) => list.filter((_, j) => j !== i))} aria-label={`Remove variation ${i + 1}`}>
                    ✕
                  </Button>
                </div>
              )}
            </Field>
          ))}
        </div>
        <Button variant="secondary" className="ap-small" onClick={() => setVariations((list) => [...list, ''])} disabled={variations.length >= 50}>
          Add a variation
        </Button>
      </fieldset>
      {item && (item.media.length > 0 || Object.keys(item.settings).length > 0) ? <p className="hint">Its media and per-platform settings are kept as they are.</p> : null}
      {save.error && !shownElsewhere ? <ErrorNotice error={save.error} /> : null}
      <div className="ap-form-actions">
        <Button variant="ghost" onClick={onDone} disabled={save.isPending}>
          Cancel
        </Button>
        <Button type="submit" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : item ? 'Save item' : 'Add item'}
        </Button>
      </div>
    </form>
  );
}

function PlanSection({ queueId, items, channels }: { queueId: string; items: Item[]; channels: Map<string, Integration> }) {
  const [days, setDays] = useState(7);
  const [draft, setDraft] = useState('7');
  const [shown, setShown] = useState(false);
  const plan = useQuery({
    queryKey: keys.plan(queueId, days),
    queryFn: () => unwrap(api.GET('/evergreen/{id}/plan', { params: { path: { id: queueId }, query: { days } } })),
    enabled: shown,
  });
  const byId = new Map(items.map((i) => [i.id, i]));
  const draftError = intError(draft, 1, 90);

  function submit(e: FormEvent) {
    e.preventDefault();
    if (draftError) return;
    setDays(Number(draft));
    setShown(true);
  }
  const slots = plan.data?.slots ?? [];
  const empty = slots.filter((s) => s.itemId === null).length;

  return (
    <section className="ap-section" aria-labelledby="plan-title">
      <h3 id="plan-title">Plan</h3>
      <p className="hint">The free slots of the queue&rsquo;s channels and what each would get. Nothing is scheduled until the queue fills them (on its own every few minutes, or with &ldquo;Fill now&rdquo;). Paused channels are left out.</p>
      <form className="ap-inline-form" onSubmit={submit} noValidate>
        <Field label="Days ahead" error={draftError}>
          {(p) => <TextInput {...p} type="number" inputMode="numeric" min={1} max={90} value={draft} onChange={(e) => setDraft(e.target.value)} style={{ width: '7rem' }} />}
        </Field>
        <Button type="submit" variant="secondary">
          {shown ? 'Update plan' : 'Show plan'}
        </Button>
      </form>
      {!shown ? null : plan.isPending ? (
        <Spinner label="Loading the plan" />
      ) : plan.error ? (
        <ErrorNotice error={plan.error} />
      ) : slots.length === 0 ? (
        <p className="ap-muted">No free slot in the next {days} days.</p>
      ) : (
        <>
          <p className="hint">
            {slots.length} free {slots.length === 1 ? 'slot' : 'slots'} in the next {days} days{empty > 0 ? `, ${empty} would stay empty (every item used within the repeat gap)` : ''}.
          </p>
          <div className="ap-table-wrap">
            <table className="table">
              <caption className="visually-hidden">Planned slots for the next {days} days</caption>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Channel</th>
                  <th scope="col">Would post</th>
                </tr>
              </thead>
              <tbody>
                {slots.map((s) => (
                  <tr key={`${s.integrationId}-${s.at}`}>
                    <td>
                      <When iso={s.at} />
                    </td>
                    <td>{channelLabel(channels, s.integrationId)}</td>
                    <td>
                      {s.itemId === null ? (
                        <span className="ap-muted">Stays empty: no item eligible</span>
                      ) : (
                        <>
                          {excerpt(s.content ?? byId.get(s.itemId)?.content)} <span className="ap-muted">({variationLabel(s.variation)})</span>
                        </>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </section>
  );
}

import { useState } from 'react';
import { Link } from 'react-router';
import { useTimeZone } from '../../api/session.js';
import { Button, EmptyState, ErrorNotice, PageHeader, Spinner } from '../../components/ui.js';
import { formatDateTime, utcTitle } from '../../lib/time.js';
import { useActivity, type ActivityEntry, type ActivityFilters } from './queries.js';
import './activity.css';

const ACTOR_KINDS: Record<ActivityEntry['actor']['kind'], string> = {
  user: 'Person',
  api_key: 'API key',
  oauth_app: 'App',
  mcp: 'Assistant (MCP)',
  preview_link: 'Preview link',
  system: 'Tidings',
};

const ACTIONS: { value: string; label: string }[] = [
  { value: 'post.', label: 'Posts' },
  { value: 'channel.', label: 'Channels' },
  { value: 'api_key.', label: 'API keys' },
  { value: 'webhook.', label: 'Webhooks' },
  { value: 'member.', label: 'Members' },
  { value: 'comment.', label: 'Comments' },
  { value: 'preview_link.', label: 'Preview links' },
  { value: 'approval_rule.', label: 'Approval rules' },
  { value: 'oauth_app.', label: 'Apps' },
];

const TARGET_KINDS: { value: string; label: string }[] = [
  { value: 'post', label: 'Post' },
  { value: 'channel', label: 'Channel' },
  { value: 'api_key', label: 'API key' },
  { value: 'webhook', label: 'Webhook' },
  { value: 'member', label: 'Member' },
  { value: 'invitation', label: 'Invitation' },
  { value: 'comment', label: 'Comment' },
  { value: 'preview_link', label: 'Preview link' },
  { value: 'approval_rule', label: 'Approval rule' },
  { value: 'oauth_app', label: 'App' },
];

const NOUNS: Record<string, string> = { api_key: 'API key', oauth_app: 'App' };

/** `webhook.secret_rotated` → "Webhook secret rotated" */
export function describeAction(action: string): string {
  const [kind = '', ...rest] = action.split('.');
  const noun = NOUNS[kind] ?? kind.replace(/_/g, ' ');
  const verb = rest.join(' ').replace(/_/g, ' ');
  return `${noun.charAt(0).toUpperCase()}${noun.slice(1)}${verb ? ` ${verb}` : ''}`;
}

function Target({ entry }: { entry: ActivityEntry }) {
  const { target } = entry;
  const label = target.name ?? target.id ?? '—';
  const kind = TARGET_KINDS.find((k) => k.value === target.kind)?.label ?? target.kind;
  return (
    <>
      <span className="activity-kind">{kind}</span>{' '}
      {target.kind === 'post' && target.id && entry.action !== 'post.deleted' ? <Link to={`/posts/${target.id}`}>{label}</Link> : <span>{label}</span>}
    </>
  );
}

function Row({ entry, timeZone }: { entry: ActivityEntry; timeZone: string }) {
  return (
    <tr>
      <td data-label="When">
        <time dateTime={entry.at} title={utcTitle(entry.at)}>
          {formatDateTime(entry.at, timeZone)}
        </time>
      </td>
      <td data-label="Who">
        <span>
          {entry.actor.name} <span className="activity-kind">{ACTOR_KINDS[entry.actor.kind]}</span>
        </span>
      </td>
      <td data-label="What">{describeAction(entry.action)}</td>
      <td data-label="Target">
        <span>
          <Target entry={entry} />
        </span>
      </td>
    </tr>
  );
}

/** The organisation's activity log: who did what, newest first, with filters and "Load more". */
export default function ActivityPage() {
  const tz = useTimeZone();
  const [filters, setFilters] = useState<ActivityFilters>({});
  const q = useActivity(filters);
  const entries = q.data?.pages.flatMap((p) => p.entries) ?? [];
  const set = (patch: Partial<ActivityFilters>) => setFilters((f) => ({ ...f, ...patch }));
  const filtered = Object.values(filters).some((v) => v);

  return (
    <>
      <PageHeader title="Activity">
        <p className="hint">Who did what to your posts, channels, keys, webhooks and members, and when: people, API keys, apps, assistants and Tidings itself. Kept at least 90 days.</p>
      </PageHeader>
      <form className="activity-filters" aria-label="Filter the activity" onSubmit={(e) => e.preventDefault()}>
        <label>
          Who
          <select value={filters.actorKind ?? ''} onChange={(e) => set({ actorKind: (e.target.value || undefined) as ActivityFilters['actorKind'] })}>
            <option value="">Anyone</option>
            {Object.entries(ACTOR_KINDS).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label>
          What
          <select value={filters.action ?? ''} onChange={(e) => set({ action: e.target.value || undefined })}>
            <option value="">Any action</option>
            {ACTIONS.map((a) => (
              <option key={a.value} value={a.value}>
                {a.label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Target
          <select value={filters.targetKind ?? ''} onChange={(e) => set({ targetKind: e.target.value || undefined })}>
            <option value="">Anything</option>
            {TARGET_KINDS.map((k) => (
              <option key={k.value} value={k.value}>
                {k.label}
              </option>
            ))}
          </select>
        </label>
        <label>
          From
          <input type="date" value={filters.from ?? ''} max={filters.to} onChange={(e) => set({ from: e.target.value || undefined })} />
        </label>
        <label>
          To
          <input type="date" value={filters.to ?? ''} min={filters.from} onChange={(e) => set({ to: e.target.value || undefined })} />
        </label>
        {filtered ? (
          <Button type="button" variant="ghost" onClick={() => setFilters({})}>
            Clear filters
          </Button>
        ) : null}
      </form>
      {q.isPending ? <Spinner label="Loading the activity" /> : null}
      <ErrorNotice error={q.error} />
      {q.data && entries.length === 0 ? (
        <EmptyState title={filtered ? 'Nothing matches these filters' : 'No activity yet'}>
          <p>{filtered ? 'Try fewer filters or a wider date range.' : 'When someone creates a post, connects a channel or adds a key, it shows here.'}</p>
        </EmptyState>
      ) : null}
      {entries.length > 0 ? (
        <table className="activity-table">
          <caption className="visually-hidden">Activity, newest first</caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Who</th>
              <th scope="col">What</th>
              <th scope="col">Target</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((e) => (
              <Row key={e.id} entry={e} timeZone={tz} />
            ))}
          </tbody>
        </table>
      ) : null}
      {q.hasNextPage ? (
        <div className="activity-more">
          <Button variant="secondary" disabled={q.isFetchingNextPage} onClick={() => void q.fetchNextPage()}>
            {q.isFetchingNextPage ? 'Loading…' : 'Load more'}
          </Button>
        </div>
      ) : null}
    </>
  );
}

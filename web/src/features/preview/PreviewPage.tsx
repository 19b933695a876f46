import { useMutation, useQuery } from '@tanstack/react-query';
import { useEffect, useId, useState, type FormEvent, type ReactNode } from 'react';
import { useParams } from 'react-router';
import { ApiFailure, type ApiError } from '../../api/client.js';
import type { Integration, PlatformIdentifier } from '../../api/queries.js';
import { Button, ErrorNotice, Field, Notice, Spinner, TextInput } from '../../components/ui.js';
import { useDocumentTitle } from '../../lib/documentTitle.js';
import { PLATFORM_NAMES } from '../../lib/platforms.js';
import { formatDateTime, utcTitle } from '../../lib/time.js';
import { htmlToPlain } from '../compose/counting.js';
import type { ComposeItem } from '../compose/model.js';
import { PreviewCard } from '../compose/Preview.js';
import { decidePreview, fetchPreview } from './previewApi.js';
import { STATUS_LABEL, type PreviewGroup, type PreviewPost } from './types.js';
import '../compose/compose.css';
import './preview.css';

/** Where the viewer's name is kept between visits (asked once, on this browser). */
export const NAME_KEY = 'tidings.preview.name';

const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;

const isPlatform = (id: string): id is PlatformIdentifier => Object.hasOwn(PLATFORM_NAMES, id);

/**
 * The composer's preview card takes a channel of the organisation; a link shows only its name,
 * platform and picture (no id leaves the server), so the rest is what the card does not read.
 */
function cardChannel(post: PreviewPost, key: string): Integration | undefined {
  if (!isPlatform(post.channel.identifier)) return undefined;
  return {
    id: key,
    name: post.channel.name,
    identifier: post.channel.identifier,
    picture: post.channel.picture,
    profile: null,
    disabled: false,
    refreshNeeded: false,
    sandbox: false,
    postingTimes: [],
    settings: {},
    createdAt: '',
    updatedAt: '',
  };
}

function cardItems(post: PreviewPost, key: string): ComposeItem[] {
  return post.items.map((item, i) => ({
    key: `${key}-${i}`,
    text: htmlToPlain(item.content),
    media: item.image.map((m) => ({ id: m.path, path: m.path, type: m.type, thumbnail: m.thumbnail, alt: m.alt ?? '' })),
    delay: item.delay,
  }));
}

function readName(): string {
  try {
    return localStorage.getItem(NAME_KEY) ?? '';
  } catch {
    return '';
  }
}

function saveName(name: string) {
  try {
    localStorage.setItem(NAME_KEY, name);
  } catch {
    // private mode: the name lasts this visit only
  }
}

/** The holder's page is not for search engines, and its address (the token) goes to no other site. */
function usePrivatePage() {
  useEffect(() => {
    const added = [
      ['robots', 'noindex, nofollow'],
      ['referrer', 'no-referrer'],
    ].map(([name, content]) => {
      const meta = document.createElement('meta');
      meta.name = name!;
      meta.content = content!;
      document.head.appendChild(meta);
      return meta;
    });
    return () => added.forEach((m) => m.remove());
  }, []);
}

function PasswordForm({ wrong, pending, onSubmit }: { wrong: boolean; pending: boolean; onSubmit: (password: string) => void }) {
  const [value, setValue] = useState('');
  return (
    <form
      className="card preview-gate"
      onSubmit={(e) => {
        e.preventDefault();
        if (value) onSubmit(value);
      }}
    >
      <h1>This preview is protected</h1>
      <p>Enter the password you were given with the link.</p>
      <Field label="Password" error={wrong ? 'That password is not right.' : undefined}>
        {(p) => <TextInput {...p} type="password" autoComplete="current-password" value={value} onChange={(e) => setValue(e.target.value)} autoFocus />}
      </Field>
      <div className="dialog-actions">
        <Button type="submit" disabled={pending || !value}>
          {pending ? 'Checking…' : 'Show the posts'}
        </Button>
      </div>
    </form>
  );
}

function NameBar({ name, onName }: { name: string; onName: (name: string) => void }) {
  const [editing, setEditing] = useState(name === '');
  const [value, setValue] = useState(name);
  const id = useId();
  if (!editing) {
    return (
      <p className="preview-name">
        Reviewing as <strong>{name}</strong>{' '}
        <Button variant="ghost" onClick={() => setEditing(true)}>
          Change
        </Button>
      </p>
    );
  }
  return (
    <form
      className="card preview-name-form"
      aria-labelledby={id}
      onSubmit={(e) => {
        e.preventDefault();
        const trimmed = value.trim();
        if (!trimmed) return;
        onName(trimmed);
        setEditing(false);
      }}
    >
      <p id={id}>You can approve these posts or ask for changes. Your name goes with your decision.</p>
      <div className="preview-name-row">
        <Field label="Your name">{(p) => <TextInput {...p} value={value} maxLength={100} autoComplete="name" onChange={(e) => setValue(e.target.value)} />}</Field>
        <Button type="submit" disabled={!value.trim()}>
          Save
        </Button>
      </div>
    </form>
  );
}

function Decision({ token, password, group, name, onDecided }: { token: string; password: string | undefined; group: PreviewGroup; name: string; onDecided: () => void }) {
  const [asking, setAsking] = useState(false);
  const [comment, setComment] = useState('');
  const id = useId();
  const decide = useMutation({
    mutationFn: (d: { kind: 'approve' | 'request-changes'; comment?: string }) => decidePreview(token, group.group, d.kind, { name, ...(d.comment ? { comment: d.comment } : {}) }, password),
    onSuccess: () => {
      setAsking(false);
      setComment('');
      onDecided();
    },
  });
  const open = group.status === 'pending_approval' || group.status === 'changes_requested';
  if (!open) return null;
  if (!name) return <p className="hint">Enter your name above to approve or ask for changes.</p>;

  function requestChanges(e: FormEvent) {
    e.preventDefault();
    if (comment.trim()) decide.mutate({ kind: 'request-changes', comment: comment.trim() });
  }

  return (
    <div className="preview-decision">
      {asking ? (
        <form onSubmit={requestChanges} className="preview-changes">
          <label htmlFor={`${id}-comment`}>What should change?</label>
          <textarea id={`${id}-comment`} className="input" rows={3} maxLength={5000} value={comment} onChange={(e) => setComment(e.target.value)} autoFocus />
          <div className="dialog-actions">
            <Button variant="secondary" type="button" onClick={() => setAsking(false)} disabled={decide.isPending}>
              Cancel
            </Button>
            <Button type="submit" disabled={decide.isPending || !comment.trim()}>
              {decide.isPending ? 'Sending…' : 'Send request'}
            </Button>
          </div>
        </form>
      ) : (
        <div className="preview-decision-buttons">
          <Button onClick={() => decide.mutate({ kind: 'approve' })} disabled={decide.isPending}>
            {decide.isPending ? 'Approving…' : 'Approve'}
          </Button>
          {group.status === 'pending_approval' ? (
            <Button variant="secondary" onClick={() => setAsking(true)} disabled={decide.isPending}>
              Request changes
            </Button>
          ) : null}
        </div>
      )}
      <ErrorNotice error={decide.error} />
    </div>
  );
}

function GroupCard({ group, children }: { group: PreviewGroup; children?: ReactNode }) {
  return (
    <article className="card preview-group" aria-label={`Post for ${formatDateTime(group.publishDate, zone)}`}>
      <header className="preview-group-head">
        <time dateTime={group.publishDate} title={utcTitle(group.publishDate)}>
          {formatDateTime(group.publishDate, zone, { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit' })}
        </time>
        <span className={`badge preview-status preview-status-${group.status}`}>{STATUS_LABEL[group.status]}</span>
      </header>
      <div className="preview-cards">
        {group.posts.map((post, i) => {
          const key = `${group.group}-${i}`;
          const channel = cardChannel(post, key);
          return channel ? <PreviewCard key={key} channel={channel} rules={undefined} items={cardItems(post, key)} dropped={0} when={undefined} /> : null;
        })}
      </div>
      {children}
    </article>
  );
}

const failure = (error: unknown): ApiError | undefined => (error instanceof ApiFailure ? error.body : undefined);

/**
 * A client's view of a preview link (`/preview/:token`, no sign-in): the password when the link
 * asks for one, then each post as it will look on each channel, its status, and (when the link
 * allows it) Approve / Request changes under the name the viewer gives once.
 */
export default function PreviewPage() {
  const { token = '' } = useParams();
  const [password, setPassword] = useState<string | undefined>(undefined);
  const [name, setName] = useState(readName);
  usePrivatePage();
  const view = useQuery({
    queryKey: ['preview', token, password ?? ''],
    queryFn: () => fetchPreview(token, password),
    retry: (count, err) => !(err instanceof ApiFailure) && count < 2,
    refetchOnWindowFocus: false,
  });
  useDocumentTitle(view.data ? view.data.link.title || `Posts from ${view.data.organization.name}` : 'Preview');

  const error = failure(view.error);
  let body;
  if (view.isPending) {
    body = <Spinner label="Loading the posts" />;
  } else if (error?.code === 'PREVIEW_PASSWORD_REQUIRED') {
    body = <PasswordForm wrong={password !== undefined} pending={view.isFetching} onSubmit={setPassword} />;
  } else if (error?.statusCode === 404) {
    body = (
      <div className="card preview-gate">
        <h1>This link is not valid or has expired</h1>
        <p>Ask the person who sent it for a new one.</p>
      </div>
    );
  } else if (error?.code === 'LOGIN_THROTTLED') {
    body = <Notice kind="bad">{error.message}</Notice>;
  } else if (view.error) {
    body = <ErrorNotice error={view.error} />;
  } else {
    const data = view.data;
    const decidable = data.link.allowApproval && data.groups.some((g) => g.status === 'pending_approval' || g.status === 'changes_requested');
    body = (
      <>
        <header className="preview-head">
          <p className="preview-org">{data.organization.name}</p>
          <h1>{data.link.title || 'Posts for your review'}</h1>
          <p className="hint">
            {data.groups.length === 0 ? 'No posts to show.' : `${data.groups.length} post${data.groups.length === 1 ? '' : 's'}`} · This link works until{' '}
            <time dateTime={data.link.expiresAt} title={utcTitle(data.link.expiresAt)}>
              {formatDateTime(data.link.expiresAt, zone)}
            </time>
          </p>
        </header>
        {decidable ? (
          <NameBar
            name={name}
            onName={(n) => {
              saveName(n);
              setName(n);
            }}
          />
        ) : null}
        <div className="preview-groups">
          {data.groups.map((g) => (
            <GroupCard key={g.group} group={g}>
              {data.link.allowApproval ? <Decision token={token} password={password} group={g} name={name} onDecided={() => void view.refetch()} /> : null}
            </GroupCard>
          ))}
        </div>
      </>
    );
  }

  return (
    <div className="preview-page">
      <main className="preview-main">{body}</main>
      <footer className="preview-foot hint">Shared with Tidings · a preview: nothing here is published yet unless it says so.</footer>
    </div>
  );
}

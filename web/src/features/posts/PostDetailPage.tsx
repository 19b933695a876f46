import { lazy, Suspense, useState, type ReactNode } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { ApprovalBar } from '../approvals/ApprovalBar.js';
import { ApiFailure } from '../../api/client.js';
import { useTimeZone } from '../../api/session.js';
import { Button, ErrorNotice, Notice, PageHeader, Spinner, StateBadge } from '../../components/ui.js';
import { platformName } from '../../lib/platforms.js';
import { formatDateTime, utcTitle } from '../../lib/time.js';
import { ChannelAvatar } from '../channels/PlatformMark.js';
import { useSandboxIds } from '../sandbox/queries.js';
import { SandboxBadge } from '../sandbox/TrySandbox.js';
import type { ComposeInitial } from '../compose/ComposeDialog.js';
import { CommentsPanel } from './CommentsPanel.js';
import { DeletePostDialog } from './DeletePostDialog.js';
import { MissingPanel } from './MissingPanel.js';
import { useChangeStatus, useDeletePost, usePostDetail, type PostDetail } from './post-queries.js';
import { PostFigures } from './PostFigures.js';
import { PostLinks } from './PostLinks.js';
import { RichContent } from './RichContent.js';
import { SeriesPanel } from './SeriesPanel.js';
import { ShareForReviewButton } from '../preview/PreviewLinkDialog.js';
import './post-detail.css';

const ComposeDialog = lazy(() => import('../compose/ComposeDialog.js'));

type Media = PostDetail['image'][number];

function When({ iso, tz }: { iso: string | null; tz: string }) {
  if (!iso) return <span className="hint">—</span>;
  return (
    <time dateTime={iso} title={utcTitle(iso)}>
      {formatDateTime(iso, tz)}
    </time>
  );
}

/** An address without its scheme, as people read it ("t.me/acmenews/7"). */
function shortUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.host}${u.pathname === '/' ? '' : u.pathname}`;
  } catch {
    return url;
  }
}

function MediaStrip({ items }: { items: Media[] }) {
  if (items.length === 0) return null;
  return (
    <ul className="post-media" aria-label="Media">
      {items.map((m) =>
        m.type === 'video' ? (
          <li key={m.id}>
            <video src={m.path} poster={m.thumbnail ?? undefined} controls preload="metadata" aria-label={m.alt ?? 'Video'} />
          </li>
        ) : (
          <li key={m.id}>
            <a href={m.path} target="_blank" rel="noopener noreferrer">
              <img src={m.thumbnail ?? m.path} alt={m.alt ?? ''} loading="lazy" />
            </a>
          </li>
        ),
      )}
    </ul>
  );
}

function PlatformLink({ url, platform, children }: { url: string | null; platform: string; children?: ReactNode }) {
  if (!url) return null;
  return (
    <a className="platform-link" href={url} target="_blank" rel="noopener noreferrer">
      {children ?? `View on ${platform}`} ↗
    </a>
  );
}

/** The failure, in the words the platform (or the publisher) gave. */
function FailureNotice({ post, platform, tz }: { post: PostDetail; platform: string; tz: string }) {
  if (post.state === 'ERROR' && post.error) {
    return (
      <div className="notice notice-bad post-failure" role="alert">
        <p className="post-failure-title">Not published on {platform}</p>
        <blockquote className="post-error-text">{post.error}</blockquote>
        <p className="hint">
          {post.attempts > 0 ? `${post.attempts} attempt${post.attempts === 1 ? '' : 's'}` : 'No attempt was made'}
          {post.lastAttemptAt ? (
            <>
              , the last at <When iso={post.lastAttemptAt} tz={tz} />
            </>
          ) : null}
          . Retry sends it again from the start.
        </p>
      </div>
    );
  }
  if (post.state === 'QUEUE' && post.error) {
    return (
      <Notice>
        The last attempt did not go through: <q>{post.error}</q>.{' '}
        {post.nextAttemptAt ? (
          <>
            Tidings tries again at <When iso={post.nextAttemptAt} tz={tz} />.
          </>
        ) : (
          'Tidings tries again shortly.'
        )}
      </Notice>
    );
  }
  return null;
}

function Facts({ post, tz, platform, sandbox }: { post: PostDetail; tz: string; platform: string; sandbox: boolean }) {
  return (
    <aside className="card post-facts" aria-label="About this post">
      <dl>
        <dt>State</dt>
        <dd>
          <StateBadge state={post.state} />
        </dd>
        <dt>Channel</dt>
        <dd className="post-channel">
          <ChannelAvatar picture={post.integration.picture} identifier={post.integration.providerIdentifier} name={post.integration.name} size={24} sandbox={sandbox} />
          <span>
            {post.integration.name} <span className="hint">({platform}{sandbox ? ', sandbox' : ''})</span>
          </span>
        </dd>
        <dt>{post.state === 'DRAFT' || post.state === 'QUEUE' ? 'Publishes' : 'Planned for'}</dt>
        <dd>
          <When iso={post.publishDate} tz={tz} />
        </dd>
        {post.publishedAt ? (
          <>
            <dt>Published</dt>
            <dd>
              <When iso={post.publishedAt} tz={tz} />
            </dd>
          </>
        ) : null}
        {post.state === 'QUEUE' && post.nextAttemptAt ? (
          <>
            <dt>Next attempt</dt>
            <dd>
              <When iso={post.nextAttemptAt} tz={tz} />
            </dd>
          </>
        ) : null}
        {post.attempts > 0 ? (
          <>
            <dt>Attempts</dt>
            <dd>
              {post.attempts}
              {post.lastAttemptAt ? (
                <span className="hint">
                  {' '}
                  (last <When iso={post.lastAttemptAt} tz={tz} />)
                </span>
              ) : null}
            </dd>
          </>
        ) : null}
        {post.state === 'PUBLISHED' ? (
          <>
            <dt>On {platform}</dt>
            <dd>
              {post.releaseURL ? (
                <PlatformLink url={post.releaseURL} platform={platform}>
                  {shortUrl(post.releaseURL)}
                </PlatformLink>
              ) : (
                <span className="hint">{post.releaseId === 'missing' ? 'not known yet' : 'no link'}</span>
              )}
            </dd>
          </>
        ) : null}
        {post.tags.length > 0 ? (
          <>
            <dt>Tags</dt>
            <dd>{post.tags.map((t) => t.tag.name).join(', ')}</dd>
          </>
        ) : null}
        <dt>Created</dt>
        <dd>
          <When iso={post.createdAt} tz={tz} />
        </dd>
      </dl>
    </aside>
  );
}

function Thread({ post, tz, platform }: { post: PostDetail; tz: string; platform: string }) {
  if (post.thread.length === 0) return null;
  return (
    <section className="post-section" aria-labelledby="post-thread">
      <h2 id="post-thread">Thread</h2>
      <ol className="thread-items">
        {post.thread.map((item, i) => (
          <li key={item.id} className="card thread-item">
            <div className="thread-item-head">
              <span className="thread-item-title">Reply {i + 1}</span>
              <StateBadge state={item.state} />
              <span className="hint">{item.delay > 0 ? `${item.delay} min after the previous item` : 'right after the previous item'}</span>
              {item.publishedAt ? (
                <span className="hint">
                  published <When iso={item.publishedAt} tz={tz} />
                </span>
              ) : null}
              <PlatformLink url={item.releaseURL} platform={platform}>
                View reply {i + 1} on {platform}
              </PlatformLink>
            </div>
            <RichContent content={item.content} />
            <MediaStrip items={item.image} />
            {item.error ? (
              <p className="error" role={item.state === 'ERROR' ? 'alert' : undefined}>
                {item.error}
              </p>
            ) : null}
          </li>
        ))}
      </ol>
    </section>
  );
}

/** One post: its state, where it is on the platform, why it failed, what blocks it, its figures and what can be done with it. */
export default function PostDetailPage() {
  const { id = '' } = useParams();
  const tz = useTimeZone();
  const sandboxIds = useSandboxIds();
  const navigate = useNavigate();
  const query = usePostDetail(id);
  const status = useChangeStatus(id);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const remove = useDeletePost(id, () => {
    setConfirmDelete(false);
    void navigate('/calendar', { replace: true });
  });
  const [compose, setCompose] = useState<ComposeInitial | null>(null);

  if (query.isPending) return <Spinner label="Loading the post" />;
  if (query.error) {
    return (
      <>
        <PageHeader title="Post" />
        <ErrorNotice error={query.error} />
        {query.error instanceof ApiFailure && query.error.status === 404 ? (
          <p>
            It may have been deleted. <Link to="/calendar">Back to the calendar</Link>
          </p>
        ) : null}
      </>
    );
  }

  const post = query.data;
  const platform = platformName(post.integration.providerIdentifier);
  const threadFailed = post.thread.some((t) => t.state === 'ERROR');
  const canRetry = post.state === 'ERROR' || (post.state === 'PUBLISHED' && threadFailed);
  const canEdit = post.state === 'DRAFT' || post.state === 'QUEUE' || post.state === 'ERROR';
  const busy = status.isPending || remove.isPending;

  const actions = (
    <>
      {canRetry ? (
        <Button onClick={() => status.mutate('schedule')} disabled={busy}>
          {status.isPending && status.variables === 'schedule' ? 'Retrying…' : 'Retry'}
        </Button>
      ) : null}
      {/* a draft awaiting approval (or changes) goes on through the approval bar, not Schedule */}
      {post.state === 'DRAFT' && (!post.approval || post.approval.status === 'approved') ? (
        <Button onClick={() => status.mutate('schedule')} disabled={busy}>
          {status.isPending ? 'Scheduling…' : 'Schedule'}
        </Button>
      ) : null}
      {post.state === 'QUEUE' ? (
        <Button variant="secondary" onClick={() => status.mutate('draft')} disabled={busy}>
          {status.isPending && status.variables === 'draft' ? 'Moving…' : 'Move to drafts'}
        </Button>
      ) : null}
      {canEdit ? (
        <Button variant="secondary" onClick={() => setCompose({ group: post.group })} disabled={busy}>
          Edit
        </Button>
      ) : null}
      <Button variant="secondary" onClick={() => setCompose({ duplicateOf: post.id })} disabled={busy}>
        Duplicate
      </Button>
      <ShareForReviewButton group={post.group} disabled={busy} />
      <Button variant="danger" onClick={() => setConfirmDelete(true)} disabled={busy}>
        Delete
      </Button>
    </>
  );

  return (
    <>
      <p className="post-back">
        <Link to="/calendar">← Calendar</Link>
      </p>
      <PageHeader title={`Post on ${post.integration.name}`} actions={actions}>
        <p className="post-sub">
          <StateBadge state={post.state} />
          <span>{platform}</span>
          {post.state === 'PUBLISHED' ? <PlatformLink url={post.releaseURL} platform={platform} /> : null}
          {sandboxIds.has(post.integration.id) ? (
            <>
              <SandboxBadge />
              <Link to={`/channels/${encodeURIComponent(post.integration.id)}/sandbox`}>Open the sandbox feed</Link>
            </>
          ) : null}
        </p>
      </PageHeader>
      <ApprovalBar post={post} />
      <ErrorNotice error={status.error} />
      {status.isSuccess && status.data.state === 'QUEUE' && post.state === 'QUEUE' ? <Notice kind="ok">Queued: Tidings publishes it {Date.parse(post.publishDate) <= Date.now() ? 'now' : 'at its time'}.</Notice> : null}
      <FailureNotice post={post} platform={platform} tz={tz} />
      <div className="post-layout">
        <div className="post-main">
          <section className="card post-body" aria-label="Content">
            <RichContent content={post.content} />
            <MediaStrip items={post.image} />
          </section>
          <Thread post={post} tz={tz} platform={platform} />
          {post.seriesId ? <SeriesPanel post={post} tz={tz} /> : null}
          <MissingPanel post={post} />
          {post.state === 'PUBLISHED' ? <PostFigures post={post} /> : null}
          <PostLinks postId={post.id} />
          <CommentsPanel group={post.group} />
        </div>
        <Facts post={post} tz={tz} platform={platform} sandbox={sandboxIds.has(post.integration.id)} />
      </div>
      <DeletePostDialog post={post} open={confirmDelete} onOpenChange={setConfirmDelete} onConfirm={() => remove.mutate()} pending={remove.isPending} error={remove.error} />
      {compose ? (
        <Suspense fallback={<Spinner label="Opening the composer" />}>
          <ComposeDialog open onOpenChange={(open) => (open ? undefined : setCompose(null))} initial={compose} />
        </Suspense>
      ) : null}
    </>
  );
}

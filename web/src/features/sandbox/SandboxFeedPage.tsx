import { Link, useParams } from 'react-router';
import { useIntegrations, type Integration } from '../../api/queries.js';
import { useTimeZone } from '../../api/session.js';
import { Button, ErrorNotice, Notice, PageHeader, Spinner } from '../../components/ui.js';
import { formatDateTime, utcTitle } from '../../lib/time.js';
import { platformName } from '../../lib/platforms.js';
import { ChannelAvatar } from '../channels/PlatformMark.js';
import { RichContent } from '../posts/RichContent.js';
import { FaultControls } from './FaultControls.js';
import { PlainPost } from './feedText.js';
import { useConnectSandbox, useSandboxFeed, type SandboxFeedItem } from './queries.js';
import { SandboxBadge } from './TrySandbox.js';
import './sandbox.css';

/** An item with its replies (thread items answer their parent: `replyTo`). */
export interface Node {
  item: SandboxFeedItem;
  replies: Node[];
}

/** The feed as threads: top-level items in the platform's order, each reply under its parent. */
export function threadsOf(items: readonly SandboxFeedItem[]): Node[] {
  const nodes = new Map(items.map((item) => [item.id, { item, replies: [] as Node[] }]));
  const roots: Node[] = [];
  for (const item of items) {
    const node = nodes.get(item.id)!;
    const parent = item.replyTo ? nodes.get(item.replyTo) : undefined;
    if (parent) parent.replies.push(node);
    else roots.push(node);
  }
  return roots;
}

const VIDEO_EXT = /\.(mp4|mov|webm|m4v)(\?|$)/i;

/** The item's media as the platform shows it: the files Tidings sent (post.media), images and videos. */
function Media({ item }: { item: SandboxFeedItem }) {
  const files = item.post?.media ?? [];
  if (files.length === 0) {
    return item.media.length > 0 ? <p className="hint">{item.media.length} attachment(s) the platform holds, not from a Tidings post.</p> : null;
  }
  return (
    <div className={`sbx-media sbx-media-${Math.min(files.length, 4)}`}>
      {files.map((f, i) => {
        const kind = item.media[i]?.kind ?? (VIDEO_EXT.test(f.path) ? 'video' : 'image');
        const video = kind === 'video' || (kind !== 'image' && VIDEO_EXT.test(f.path));
        return video ? (
          <video key={f.id} src={f.path} controls preload="metadata" className="sbx-media-item" aria-label={`Video ${i + 1}`} />
        ) : (
          <img key={f.id} src={f.path} alt={`Image ${i + 1} of the post`} className="sbx-media-item" loading="lazy" />
        );
      })}
    </div>
  );
}

function Metrics({ metrics }: { metrics: Record<string, number> }) {
  const entries = Object.entries(metrics);
  if (entries.length === 0) return null;
  return (
    <dl className="sbx-metrics" aria-label="Metrics the platform reports">
      {entries.map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd>{v.toLocaleString()}</dd>
        </div>
      ))}
    </dl>
  );
}

function FeedItem({ node, channel, timeZone }: { node: Node; channel: Integration; timeZone: string }) {
  const { item } = node;
  return (
    <li className="sbx-item" data-feed-item={item.id}>
      <article className="sbx-card" aria-label={item.replyTo ? 'Reply' : 'Post'}>
        <header className="sbx-card-head">
          <ChannelAvatar picture={channel.picture} identifier={channel.identifier} name={channel.name} size={36} sandbox />
          <span className="sbx-card-who">
            <strong>{channel.name}</strong>
            {channel.profile ? <span className="hint"> {channel.profile}</span> : null}
          </span>
          {item.createdAt ? (
            <time className="hint sbx-card-time" dateTime={item.createdAt} title={utcTitle(item.createdAt)}>
              {formatDateTime(item.createdAt, timeZone)}
            </time>
          ) : null}
        </header>
        {item.title ? <h3 className="sbx-title">{item.title}</h3> : null}
        {item.html ? <RichContent content={item.text} className="sbx-html" /> : <PlainPost text={item.text} platform={channel.identifier} />}
        <Media item={item} />
        {item.metrics ? <Metrics metrics={item.metrics} /> : null}
        <footer className="sbx-card-foot">
          {item.post?.releaseURL ? (
            <a href={item.post.releaseURL} target="_blank" rel="noopener noreferrer" title="The address the platform gave (simulated: it does not open the real platform)">
              Simulated permalink
            </a>
          ) : null}
          {item.post ? <Link to={`/posts/${encodeURIComponent(item.post.id)}`}>The post in Tidings</Link> : <span className="hint">Not from a Tidings post</span>}
        </footer>
      </article>
      {node.replies.length > 0 ? (
        <ol className="sbx-replies" aria-label="Replies">
          {node.replies.map((r) => (
            <FeedItem key={r.item.id} node={r} channel={channel} timeZone={timeZone} />
          ))}
        </ol>
      ) : null}
    </li>
  );
}

/**
 * A sandbox channel's feed (/channels/:id/sandbox): what the simulated platform holds, rendered
 * as the platform would, with the controls that make the platform fail the way it really does.
 */
export default function SandboxFeedPage() {
  const { id = '' } = useParams();
  const timeZone = useTimeZone();
  const integrations = useIntegrations();
  const feed = useSandboxFeed(id);
  const reconnect = useConnectSandbox();
  const channel = integrations.data?.find((i) => i.id === id);
  const platform = channel ? platformName(channel.identifier) : (feed.data ? platformName(feed.data.integration.identifier) : 'the platform');

  if (integrations.isPending || feed.isPending) {
    return (
      <>
        <PageHeader title="Sandbox feed" />
        <Spinner label="Loading the sandbox feed" />
      </>
    );
  }
  if (!channel || !channel.sandbox) {
    return (
      <>
        <PageHeader title="Sandbox feed" />
        {feed.error ? <ErrorNotice error={feed.error} /> : <Notice kind="bad">This is not a sandbox channel of this organisation.</Notice>}
        <p>
          <Link to="/channels">Back to the channels</Link>
        </p>
      </>
    );
  }
  const threads = threadsOf(feed.data?.items ?? []);
  return (
    <div className="sbx-page">
      <PageHeader
        title={`${channel.name}: sandbox feed`}
        documentTitle={`${channel.name} · Sandbox feed`}
        actions={
          <Button variant="secondary" onClick={() => void feed.refetch()} disabled={feed.isFetching}>
            {feed.isFetching ? 'Reading…' : 'Read again'}
          </Button>
        }
      >
        <p className="sbx-page-sub">
          <SandboxBadge /> <Link to="/channels">Channels</Link>
        </p>
      </PageHeader>
      <p className="sbx-banner" role="note">
        <strong>Sandbox — nothing here reached {platform}.</strong> This is what {platform} would show: Tidings' own simulation of it, with its rules, limits and
        failures.
      </p>
      {channel.refreshNeeded ? (
        <Notice kind="bad">
          The sandbox revoked Tidings' access, as {platform} does when a person removes the app: posts to this channel fail until it is reconnected.{' '}
          <Button onClick={() => reconnect.mutate({ identifier: channel.identifier, refresh: channel.id })} disabled={reconnect.isPending}>
            Reconnect the sandbox channel
          </Button>
        </Notice>
      ) : null}
      {reconnect.error ? <ErrorNotice error={reconnect.error} /> : null}
      <div className="sbx-layout">
        <section className="sbx-feed" aria-labelledby="sbx-feed-title">
          <h2 id="sbx-feed-title">What {platform} holds</h2>
          {feed.error ? <ErrorNotice error={feed.error} /> : null}
          {threads.length === 0 ? (
            <p className="hint">Nothing published here yet. Posts to {channel.name} show up here once they are published.</p>
          ) : (
            <ol className="sbx-items">
              {threads.map((n) => (
                <FeedItem key={n.item.id} node={n} channel={channel} timeZone={timeZone} />
              ))}
            </ol>
          )}
        </section>
        <FaultControls channel={channel} platform={platform} />
      </div>
    </div>
  );
}

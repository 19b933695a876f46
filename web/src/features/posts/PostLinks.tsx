import { useQuery } from '@tanstack/react-query';
import { ApiFailure } from '../../api/client.js';
import { getPostLinks, linkKeys, type PostLink } from '../settings/links-ai-api.js';
import './post-links.css';

const PROVIDER_NAME: Record<PostLink['provider'], string> = { builtin: 'Tidings', dub: 'Dub', shortio: 'Short.io', kutt: 'Kutt' };

const count = (n: number, one: string, many: string) => `${n.toLocaleString()} ${n === 1 ? one : many}`;

/** An address without its scheme ("go.example.com/abc"). */
function bare(url: string): string {
  return url.replace(/^https?:\/\//, '');
}

function LinkRow({ link }: { link: PostLink }) {
  const tagged = link.targetUrl !== link.originalUrl;
  return (
    <li className="card post-link">
      <p className="post-link-short">
        <a href={link.shortUrl} target="_blank" rel="noopener noreferrer">
          {bare(link.shortUrl)}
        </a>{' '}
        <span className="hint">by {PROVIDER_NAME[link.provider]}</span>
      </p>
      <p className="post-link-target">
        <span className="hint">goes to </span>
        <span className="post-link-url" title={link.targetUrl}>
          {link.targetUrl}
        </span>
        {tagged ? <span className="hint post-link-original"> (written as {link.originalUrl})</span> : null}
      </p>
      <dl className="post-link-clicks">
        <div>
          <dt>Clicks</dt>
          <dd>{count(link.clicks, 'person', 'people')}</dd>
        </div>
        {link.provider === 'builtin' ? (
          // only the built-in shortener sees the fetches of crawlers and link previews
          <div>
            <dt>Bot fetches</dt>
            <dd>
              {link.botClicks.toLocaleString()} <span className="hint">(link previews, crawlers: not counted as clicks)</span>
            </dd>
          </div>
        ) : null}
      </dl>
    </li>
  );
}

/**
 * The post's short links (GET /posts/{id}/links): each short link, where it goes (with its UTM
 * parameters) and its clicks, people and platforms' bots apart. Nothing when the post has none
 * (links are made when it is published with short links on).
 */
export function PostLinks({ postId }: { postId: string }) {
  const links = useQuery({ queryKey: linkKeys.postLinks(postId), queryFn: () => getPostLinks(postId), refetchOnWindowFocus: true, staleTime: 60_000 });
  if (links.error && !(links.error instanceof ApiFailure && links.error.status === 404)) {
    // a secondary read: said quietly, the rest of the page stands
    return (
      <section className="post-section" aria-labelledby="post-links">
        <h2 id="post-links">Links</h2>
        <p className="hint">The short links could not be read: {links.error.message}</p>
      </section>
    );
  }
  if (!links.data || links.data.links.length === 0) return null;
  return (
    <section className="post-section" aria-labelledby="post-links">
      <h2 id="post-links">Links</h2>
      <ul className="post-links">
        {links.data.links.map((l) => (
          <LinkRow key={l.id} link={l} />
        ))}
      </ul>
    </section>
  );
}

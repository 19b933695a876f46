import { parseFeed } from 'feedsmith';
import { htmlToText } from '../../platforms/common/html.js';

/** One item of any feed format, as the feeds service uses it. */
export interface FeedItem {
  /** guid / id, else the link: stable when a feed rewrites its dates */
  key: string;
  title: string | null;
  link: string | null;
  /** plain text (HTML stripped) */
  summary: string | null;
  author: string | null;
  /** the first image: enclosure, media:content, media:thumbnail, JSON Feed image, else the first <img> */
  image: string | null;
  categories: string[];
  published: Date | null;
}

export interface ParsedFeed {
  format: 'rss' | 'atom' | 'rdf' | 'json';
  title: string | null;
  items: FeedItem[];
}

export class FeedParseError extends Error {}

type Loose = Record<string, unknown> | undefined;

const str = (v: unknown): string | null => {
  if (typeof v === 'string') return v.trim() === '' ? null : v.trim();
  if (v && typeof v === 'object' && 'value' in v) return str((v).value);
  return null;
};
const arr = (v: unknown): Loose[] => (Array.isArray(v) ? (v as Loose[]) : []);

function date(v: unknown): Date | null {
  const s = str(v);
  if (!s) return null;
  const d = new Date(s);
  return Number.isNaN(d.getTime()) ? null : d;
}

function firstImgSrc(html: string | null): string | null {
  if (!html) return null;
  const m = /<img\b[^>]*\bsrc\s*=\s*["']([^"']+)["']/i.exec(html);
  return m ? m[1]! : null;
}

function isImageType(type: unknown, url: string): boolean {
  if (typeof type === 'string' && type !== '') return type.startsWith('image/') || type === 'image';
  return /\.(jpe?g|png|gif|webp|avif)(\?|$)/i.test(url);
}

/** media:content / media:thumbnail (feedsmith's `media` namespace), the first image. */
function mediaImage(media: Loose): string | null {
  if (!media) return null;
  for (const c of arr(media.contents)) {
    const url = str(c?.url);
    if (url && (c?.medium === 'image' || isImageType(c?.type, url))) return url;
  }
  for (const t of arr(media.thumbnails)) {
    const url = str(t?.url);
    if (url) return url;
  }
  for (const g of arr(media.groups)) {
    const found = mediaImage(g);
    if (found) return found;
  }
  return null;
}

function text(html: string | null): string | null {
  if (html === null) return null;
  const t = htmlToText(html);
  return t === '' ? null : t;
}

function authorOf(authors: unknown, fallback?: unknown): string | null {
  const a = arr(authors)[0];
  return str(a?.name) ?? str(a) ?? str(fallback);
}

function item(raw: Omit<FeedItem, 'key'> & { id: string | null }): FeedItem | null {
  const key = raw.id ?? raw.link;
  if (!key) return null;
  const { id: _id, ...rest } = raw;
  return { key: key.slice(0, 2000), ...rest };
}

/** Detects the format (RSS 2.0, RSS 1.0 RDF, Atom, JSON Feed) and normalises the items. Throws FeedParseError. */
export function parseFeedText(content: string): ParsedFeed {
  let parsed: { format: string; feed: unknown };
  try {
    parsed = parseFeed(content);
  } catch (e) {
    throw new FeedParseError(`not an RSS, Atom or JSON feed (${e instanceof Error ? e.message : String(e)})`);
  }
  const feed = parsed.feed as Record<string, unknown>;
  const out: (FeedItem | null)[] = [];
  if (parsed.format === 'rss' || parsed.format === 'rdf') {
    for (const i of arr(feed.items)) {
      if (!i) continue;
      const description = str(i.description) ?? str((i.content as Loose)?.encoded);
      const enclosure = arr(i.enclosures).find((e) => e && typeof e.url === 'string' && isImageType(e.type, e.url));
      const dc = i.dc as Loose;
      out.push(
        item({
          id: str((i.guid as Loose)?.value) ?? str(i.guid) ?? (parsed.format === 'rdf' ? str((i.rdf as Loose)?.about) : null),
          title: text(str(i.title)),
          link: str(i.link),
          summary: text(description),
          author: authorOf(i.authors, arr(dc?.creators)[0]),
          image: str(enclosure?.url) ?? mediaImage(i.media as Loose) ?? firstImgSrc(description) ?? firstImgSrc(str((i.content as Loose)?.encoded)),
          categories: arr(i.categories).map((c) => str(c?.name) ?? '').filter((c) => c !== ''),
          published: date(i.pubDate) ?? date(arr(dc?.dates)[0]),
        }),
      );
    }
  } else if (parsed.format === 'atom') {
    for (const e of arr(feed.entries)) {
      if (!e) continue;
      const links = arr(e.links);
      const alternate = links.find((l) => l && (l.rel === undefined || l.rel === 'alternate')) ?? links[0];
      const html = str(e.summary) ?? str(e.content);
      const enclosure = links.find((l) => l?.rel === 'enclosure' && typeof l.href === 'string' && isImageType(l.type, l.href));
      out.push(
        item({
          id: str(e.id),
          title: text(str(e.title)),
          link: str(alternate?.href),
          summary: text(html),
          author: authorOf(e.authors),
          image: str(enclosure?.href) ?? mediaImage(e.media as Loose) ?? firstImgSrc(str(e.content)) ?? firstImgSrc(str(e.summary)),
          categories: arr(e.categories).map((c) => str(c?.label) ?? str(c?.term) ?? '').filter((c) => c !== ''),
          published: date(e.published) ?? date(e.updated),
        }),
      );
    }
  } else if (parsed.format === 'json') {
    for (const i of arr(feed.items)) {
      if (!i) continue;
      const html = str(i.content_html);
      out.push(
        item({
          id: str(i.id) ?? (typeof i.id === 'number' ? String(i.id) : null),
          title: str(i.title),
          link: str(i.url) ?? str(i.external_url),
          summary: str(i.summary) ?? text(html) ?? str(i.content_text),
          author: authorOf(i.authors, (i.author as Loose)?.name),
          image: str(i.image) ?? str(i.banner_image) ?? firstImgSrc(html),
          categories: arr(i.tags).map((t) => str(t) ?? '').filter((t) => t !== ''),
          published: date(i.date_published) ?? date(i.date_modified),
        }),
      );
    }
  } else {
    throw new FeedParseError(`unsupported feed format ${parsed.format}`);
  }
  return {
    format: parsed.format,
    title: text(str(feed.title)),
    items: out.filter((x): x is FeedItem => x !== null),
  };
}

/** `{hashtags}`: each category as one #CamelCase tag (letters and digits only). */
export function hashtagsOf(categories: string[]): string {
  const tags = categories
    .map((c) =>
      c
        .split(/[^\p{L}\p{N}]+/u)
        .filter((w) => w !== '')
        .map((w) => w[0]!.toUpperCase() + w.slice(1))
        .join(''),
    )
    .filter((t) => t !== '')
    .map((t) => `#${t}`);
  return [...new Set(tags)].join(' ');
}

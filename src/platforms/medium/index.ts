import { z } from 'zod';
import { readCredentials } from '../common/credentials.js';
import { htmlSubset, type HtmlSubset } from '../common/html-subset.js';
import { htmlToMarkdown } from '../common/markdown.js';
import {
  PlatformError,
  type ConnectedAccount,
  type PlatformAdapter,
  type PublishItem,
  type PublishResult,
} from '../platform.js';
import { createStory, me, publicationsOf, type MediumUser } from './client.js';
import { MediumCredentialsSchema, mediumMetadata } from './metadata.js';

/**
 * The HTML Medium's importer takes (its "accepted HTML tags" list): paragraphs, headings h1–h4,
 * bold, italic, links, quotes, code, lists, figures with images, rules and line breaks.
 */
export const MEDIUM_HTML: HtmlSubset = {
  allowed: {
    p: [],
    br: [],
    hr: [],
    h1: [],
    h2: [],
    h3: [],
    h4: [],
    strong: [],
    em: [],
    a: ['href'],
    blockquote: [],
    pre: [],
    code: [],
    ul: [],
    ol: [],
    li: [],
    figure: [],
    figcaption: [],
    img: ['src', 'alt'],
  },
  synonyms: { b: 'strong', i: 'em', h5: 'h4', h6: 'h4' },
};

/** What a Medium channel stores: the integration token and the account it belongs to. */
const StoredCredentials = z.object({ token: z.string().min(1), userId: z.string().min(1), username: z.string().nullish() });
export interface MediumCredentials {
  token: string;
  userId: string;
  username: string;
}

interface MediumSettings {
  title?: string;
  subtitle?: string;
  canonical?: string;
  publication?: string;
  tags?: { value: string; label: string }[];
  contentFormat?: 'markdown' | 'html';
  publishStatus?: 'public' | 'draft' | 'unlisted';
  notifyFollowers?: boolean;
}

function creds(ctx: { credentials: Record<string, unknown> }): MediumCredentials {
  const c = readCredentials(ctx, StoredCredentials, 'Medium');
  return { token: c.token, userId: c.userId, username: c.username ?? '' };
}

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * The story's body as Medium takes it. The title and subtitle are put at the top as `h1`/`h2`
 * (Medium's `title` field is only used for listings and SEO); each picture follows as a figure
 * whose `src` is the media item's public URL, which Medium fetches and re-hosts when the story is
 * created. Markdown is the same HTML converted by the common CommonMark converter.
 */
export function mediumContent(item: PublishItem, settings: MediumSettings, format: 'markdown' | 'html'): string {
  const header = `<h1>${escapeHtml(settings.title ?? '')}</h1>${settings.subtitle?.trim() ? `<h2>${escapeHtml(settings.subtitle.trim())}</h2>` : ''}`;
  const figures = item.media.map((m) => {
    if (!/^https?:\/\//i.test(m.path)) {
      throw new PlatformError('rejected', `Medium fetches pictures from their public URL, and media ${m.id} has none (is PUBLIC_URL set?)`);
    }
    return `<figure><img src="${escapeHtml(m.path)}" alt="${escapeHtml(m.alt ?? '')}"></figure>`;
  });
  const html = `${header}${htmlSubset(item.content, MEDIUM_HTML)}${figures.join('')}`;
  return format === 'html' ? html : htmlToMarkdown(html);
}

/** The request body of a story (`POST /users/{authorId}/posts` or `/publications/{id}/posts`). */
export function mediumPostBody(item: PublishItem, settings: MediumSettings) {
  const title = settings.title?.trim();
  if (!title) throw new PlatformError('rejected', 'A Medium story needs a title (settings.title)');
  const contentFormat = settings.contentFormat ?? 'markdown';
  const tags = (settings.tags ?? []).map((t) => t.value.trim()).filter((t) => t !== '');
  // A `(post:…)` placeholder that was never replaced by a URL is not sent.
  const canonicalUrl = settings.canonical && /^https?:\/\//i.test(settings.canonical) ? settings.canonical : undefined;
  return {
    title,
    contentFormat,
    content: mediumContent(item, { ...settings, title }, contentFormat),
    ...(tags.length > 0 ? { tags } : {}),
    ...(canonicalUrl ? { canonicalUrl } : {}),
    // Writers (not editors) of a publication may only submit drafts, so a publication gets a draft unless told otherwise.
    publishStatus: settings.publishStatus ?? (settings.publication ? 'draft' : 'public'),
    ...(typeof settings.notifyFollowers === 'boolean' ? { notifyFollowers: settings.notifyFollowers } : {}),
  };
}

/**
 * Creates the Medium adapter: an integration token (Medium issues no new ones since 2025; existing
 * tokens keep working and never expire). Stories go to the account or, with `publication`, to a
 * publication. Medium's API cannot list an account's stories, so there is no `findRecent`: an
 * interrupted attempt ends "outcome unknown" rather than being sent again.
 */
export function createMediumAdapter(): PlatformAdapter {
  return {
    metadata: mediumMetadata,

    async connectWithCredentials(input, ctx): Promise<ConnectedAccount> {
      const { token } = MediumCredentialsSchema.parse(input);
      let user: MediumUser;
      try {
        user = await me(ctx, token.trim());
      } catch (e) {
        if (e instanceof PlatformError && e.kind !== 'transient' && e.kind !== 'rate_limited') {
          throw new PlatformError('rejected', `Medium refused the integration token: ${e.message}`, { field: 'token' });
        }
        throw e;
      }
      return {
        internalId: user.id,
        name: user.name?.trim() || user.username,
        profile: user.username,
        picture: user.imageUrl ?? null,
        credentials: { token: token.trim(), userId: user.id, username: user.username } satisfies MediumCredentials,
        expiresAt: null,
      };
    },

    validate() {
      return [];
    },

    /** Not idempotent: Medium has no idempotency key, and a repeated call creates a second story. */
    async publish({ item, settings }, ctx): Promise<PublishResult> {
      const c = creds(ctx);
      const s = settings as MediumSettings;
      const publication = s.publication?.trim();
      const post = await createStory(ctx, c.token, c.userId, publication, mediumPostBody(item, s));
      return { status: 'published', id: post.id, url: post.url };
    },

    /** `publications`: the publications the account belongs to (Medium lists those it writes or edits for, and some it follows). */
    async runTool(methodName, _data, ctx) {
      if (methodName !== 'publications') throw new PlatformError('unsupported', `Medium has no tool "${methodName}"`);
      const c = creds(ctx);
      const list = await publicationsOf(ctx, c.token, c.userId);
      return list.map((p) => ({ id: p.id, name: p.name, url: p.url ?? null, picture: p.imageUrl ?? null }));
    },
  };
}

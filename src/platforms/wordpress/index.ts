import { z } from 'zod';
import { readCredentials, storedText } from '../common/credentials.js';
import { htmlToText } from '../common/html.js';
import { mediaFileName } from '../common/media.js';
import {
  PlatformError,
  type ConnectedAccount,
  type OperationContext,
  type PlatformAdapter,
  type PublishMedia,
  type PublishResult,
  type ValidationIssue,
} from '../platform.js';
import { discoverRestRoot, normalizeSiteUrl, wpRequest, type Site } from './client.js';
import { wordpressCode, wordpressError, wordpressMessage, wordpressResult } from './errors.js';
import { WordpressCredentialsSchema, WordpressSettingsSchema, wordpressMetadata } from './metadata.js';

/**
 * WordPress (self-hosted) through its REST API (`wp/v2`) with an application password of one of
 * the site's users (Basic auth). The REST root is discovered the way WordPress documents it (the
 * front page's `Link: <…>; rel="https://api.w.org/"`), so sites without pretty permalinks
 * (`?rest_route=`) work too; it is kept in the credentials. The site is whatever the user typed,
 * so every request passes the SSRF guard (`untrustedHost`).
 */

interface WordpressCredentials extends Site {
  siteUrl: string;
  userId: number;
}

interface WpUser {
  id: number;
  name?: string;
  username?: string;
  slug?: string;
  link?: string;
  avatar_urls?: Record<string, string>;
  capabilities?: Record<string, boolean>;
}

interface WpMedia {
  id: number;
  source_url?: string;
}

interface WpPost {
  id: number;
  link?: string;
  date?: string | null;
  date_gmt?: string | null;
  modified_gmt?: string | null;
  status?: string;
  type?: string;
  title?: { raw?: string; rendered?: string };
  content?: { raw?: string; rendered?: string };
  featured_media?: number;
  categories?: number[];
  tags?: number[];
}

interface WpType {
  name?: string;
  slug?: string;
  rest_base?: string | false;
  rest_namespace?: string;
}

interface WpTerm {
  id: number;
  name: string;
  slug?: string;
  parent?: number;
  count?: number;
}

/** Post types WordPress keeps for itself (media, menus, blocks, templates, fonts): not places to publish. */
const INTERNAL_TYPES = new Set(['attachment', 'nav_menu_item', 'wp_block', 'wp_template', 'wp_template_part', 'wp_navigation', 'wp_global_styles', 'wp_font_family', 'wp_font_face']);
/** A REST base is one path segment. */
const REST_BASE = /^[a-z0-9_-]+$/i;
const PER_PAGE = 100;
/** `after` compares WordPress's local post dates: look a day further back, then filter on GMT. */
const AFTER_MARGIN_MS = 86_400_000;

const StoredWordpressCredentials = z
  .object({ restRoot: storedText, username: storedText, applicationPassword: storedText, siteUrl: z.string().nullish(), userId: z.unknown() })
  .transform(({ siteUrl, userId, ...c }): WordpressCredentials => ({ siteUrl: siteUrl ?? c.restRoot, ...c, userId: Number(userId) || 0 }));
const creds = (ctx: Pick<OperationContext, 'credentials'>): WordpressCredentials => readCredentials(ctx, StoredWordpressCredentials, 'WordPress');

/** `post`/`page` (the type's slug) are accepted for the REST bases `posts`/`pages`. */
export function restBaseOf(type: string | undefined): string {
  const t = (type ?? '').trim() || 'posts';
  if (t === 'post') return 'posts';
  if (t === 'page') return 'pages';
  return t;
}

/** The date WordPress gives a post, as ISO 8601 UTC (drafts may have no GMT date yet). */
function createdAt(p: WpPost): string {
  const gmt = p.date_gmt ?? p.modified_gmt;
  if (gmt) return new Date(`${gmt.replace(/Z$/, '')}Z`).toISOString();
  return p.date ? new Date(p.date).toISOString() : new Date(0).toISOString();
}

function escapeAttr(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A picture of the post, as the block editor writes an image block (classic themes show it as a figure). */
function imageBlock(m: WpMedia, alt: string | null | undefined): string {
  return `<!-- wp:image {"id":${m.id}} -->\n<figure class="wp-block-image"><img src="${escapeAttr(m.source_url ?? '')}" alt="${escapeAttr(alt ?? '')}" class="wp-image-${m.id}"/></figure>\n<!-- /wp:image -->`;
}

/** A guess at a settings picture's type from its path (settings references carry no type). */
function imageTypeOf(path: string): string {
  const ext = /\.([a-z0-9]+)(?:$|[?#])/i.exec(path)?.[1]?.toLowerCase();
  return ext === 'png' ? 'image/png' : ext === 'gif' ? 'image/gif' : ext === 'webp' ? 'image/webp' : 'image/jpeg';
}

/** Creates the WordPress adapter. */
export function createWordpressAdapter(): PlatformAdapter {
  /** Every page of a list route (`X-WP-TotalPages`). */
  async function listAll<T>(ctx: OperationContext, site: Site, route: string, query: Record<string, string | number> = {}): Promise<T[]> {
    const out: T[] = [];
    for (let page = 1; page <= 50; page++) {
      const res = await wpRequest(ctx, site, 'GET', route, { query: { ...query, per_page: PER_PAGE, page } });
      const items = wordpressResult<T[]>(res, ctx.clock.now());
      if (!Array.isArray(items)) throw new PlatformError('rejected', `WordPress did not answer ${route} with a list`);
      out.push(...items);
      const total = Number(res.headers['x-wp-totalpages'] ?? '1');
      if (items.length === 0 || !(page < total)) break;
    }
    return out;
  }

  /** Uploads one picture to the media library, streamed from the stored file. */
  async function upload(ctx: OperationContext, site: Site, m: PublishMedia): Promise<WpMedia> {
    const blob = await ctx.openMedia(m);
    const type = blob.type || m.mimeType;
    const filename = mediaFileName({ ...m, mimeType: type });
    const res = await wpRequest(ctx, site, 'POST', '/wp/v2/media', {
      // Query parameters count as request fields on WordPress: the alt text comes with the upload.
      query: m.alt ? { alt_text: m.alt } : {},
      headers: { 'content-type': type, 'content-disposition': `attachment; filename="${filename.replace(/["\\\r\n]/g, '_')}"` },
      body: blob,
      timeoutMs: 300_000,
    });
    const media = wordpressResult<WpMedia>(res, ctx.clock.now());
    if (typeof media?.id !== 'number') throw new PlatformError('rejected', 'WordPress did not answer the upload with a media item');
    return media;
  }

  async function me(ctx: Pick<OperationContext, 'http' | 'clock'>, site: Site): Promise<WpUser> {
    return wordpressResult<WpUser>(await wpRequest(ctx, site, 'GET', '/wp/v2/users/me', { query: { context: 'edit' } }), ctx.clock.now());
  }

  async function listTerms(ctx: OperationContext, taxonomy: 'categories' | 'tags') {
    const site = creds(ctx);
    const terms = await listAll<WpTerm>(ctx, site, `/wp/v2/${taxonomy}`, { orderby: 'name', order: 'asc', hide_empty: 'false' });
    return terms.map((t) => ({ id: t.id, name: htmlToText(t.name), ...(taxonomy === 'categories' ? { parent: t.parent ?? 0 } : {}) }));
  }

  return {
    metadata: wordpressMetadata,

    /**
     * Finds the REST root, then checks the user and the application password with
     * `users/me?context=edit`. A refusal names the field: the password or the user name when
     * WordPress says which, the site address when the site is not a WordPress REST API.
     */
    async connectWithCredentials(input, ctx): Promise<ConnectedAccount> {
      const parsed = WordpressCredentialsSchema.parse(input);
      const siteUrl = normalizeSiteUrl(parsed.siteUrl);
      const restRoot = await discoverRestRoot(ctx, siteUrl);
      const site: Site = { restRoot, username: parsed.username, applicationPassword: parsed.applicationPassword };
      let res;
      try {
        res = await wpRequest(ctx, site, 'GET', '/wp/v2/users/me', { query: { context: 'edit' } });
      } catch (e) {
        if (e instanceof PlatformError) throw new PlatformError('rejected', `${siteUrl} could not be reached: ${e.message}`, { field: 'siteUrl' });
        throw e;
      }
      const code = wordpressCode(res.body);
      const message = wordpressMessage(res);
      if (code === 'invalid_username' || code === 'invalid_email') throw new PlatformError('rejected', `WordPress does not know this user: ${message}`, { field: 'username', status: res.status });
      if (code === 'incorrect_password') throw new PlatformError('rejected', `WordPress refused the application password: ${message}`, { field: 'applicationPassword', status: res.status });
      if (code === 'application_passwords_disabled' || code === 'application_passwords_disabled_for_user') {
        throw new PlatformError('rejected', `${message} (WordPress offers application passwords only over HTTPS, unless the site is a local environment)`, { field: 'applicationPassword', status: res.status });
      }
      if (code === 'rest_not_logged_in') {
        // WordPress answers so when the password or the user is wrong on many sites (the login is
        // tried before the request is known as a REST one), and when the header never reaches it.
        throw new PlatformError(
          'rejected',
          'WordPress did not log in with this user name and application password: check both (if they are right, the server may drop the Authorization header, or application passwords are off)',
          { field: 'applicationPassword', status: res.status },
        );
      }
      const user = res.body as WpUser | null;
      if (res.status !== 200 || typeof user?.id !== 'number') {
        if (res.status === 429 || res.status >= 500) throw wordpressError(res, ctx.clock.now()) ?? new PlatformError('transient', message);
        throw new PlatformError('rejected', `${siteUrl} does not answer like a WordPress site with its REST API (${code ?? `HTTP ${res.status}`})`, { field: 'siteUrl', status: res.status });
      }
      const root = new URL(restRoot);
      return {
        // A user id is only unique on its site.
        internalId: `${root.host}${root.pathname.replace(/\/wp-json\/?$|\/index\.php$|\/$/, '')}#${user.id}`,
        name: user.name || user.username || user.slug || String(user.id),
        profile: user.username ?? user.slug ?? null,
        picture: user.avatar_urls?.['96'] ?? Object.values(user.avatar_urls ?? {}).at(-1) ?? null,
        credentials: { siteUrl, restRoot, username: parsed.username, applicationPassword: parsed.applicationPassword, userId: user.id } satisfies WordpressCredentials,
        // Application passwords do not expire.
        expiresAt: null,
      };
    },

    validate(post) {
      const issues: ValidationIssue[] = [];
      const type = typeof post.settings.type === 'string' ? post.settings.type.trim() : '';
      if (type && !REST_BASE.test(type)) {
        issues.push({ path: 'settings.type', code: 'invalid', message: 'The post type is its REST base, one word such as "posts" or "pages"' });
      }
      if (restBaseOf(type) === 'pages') {
        for (const key of ['categories', 'tags'] as const) {
          const v = post.settings[key];
          if (Array.isArray(v) && v.length > 0) issues.push({ path: `settings.${key}`, code: 'unsupported', message: `WordPress pages have no ${key}` });
        }
      }
      return issues;
    },

    /**
     * Not idempotent: WordPress has no idempotency key, a retried call makes a second post.
     * The featured image (`main_image`) and the item's pictures are uploaded to the media library
     * first (a retry uploads them again); the pictures are placed after the text as image blocks.
     */
    async publish({ item, settings }, ctx): Promise<PublishResult> {
      const site = creds(ctx);
      const s = WordpressSettingsSchema.safeParse(settings);
      if (!s.success) throw new PlatformError('rejected', `WordPress settings are not valid: ${s.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
      const base = restBaseOf(s.data.type);
      if (!REST_BASE.test(base)) throw new PlatformError('rejected', `"${s.data.type}" is not a WordPress post type`);

      let featured: WpMedia | undefined;
      if (s.data.main_image) {
        const ref = s.data.main_image;
        featured = await upload(ctx, site, { id: ref.id, path: ref.path, type: 'image', mimeType: imageTypeOf(ref.path), size: 0, alt: ref.alt ?? null });
      }
      const blocks: string[] = [];
      for (const m of item.media) {
        if (m.type !== 'image') throw new PlatformError('rejected', 'WordPress posts take pictures here, not videos');
        blocks.push(imageBlock(await upload(ctx, site, m), m.alt));
      }
      const content = [item.content, ...blocks].filter((x) => x.trim() !== '').join('\n\n');

      const status = s.data.status ?? 'publish';
      const body: Record<string, unknown> = { title: s.data.title, content, status };
      if (s.data.date) body.date_gmt = new Date(s.data.date).toISOString().slice(0, 19);
      if (base !== 'pages') {
        if (s.data.categories?.length) body.categories = s.data.categories;
        if (s.data.tags?.length) body.tags = s.data.tags;
      }
      if (featured) body.featured_media = featured.id;

      const res = await wpRequest(ctx, site, 'POST', `/wp/v2/${base}`, { body });
      const post = wordpressResult<WpPost>(res, ctx.clock.now());
      if (typeof post?.id !== 'number') {
        // Not a post: a redirect turned the POST into a GET, or something else answered.
        throw new PlatformError('transient', `WordPress answered the new post without its id (HTTP ${res.status})`, { outcomeUnknown: true });
      }
      // WordPress drops unknown term ids and a featured image it cannot use without a word.
      const missing = [...(s.data.categories ?? []).filter((id) => base !== 'pages' && !(post.categories ?? []).includes(id)), ...(s.data.tags ?? []).filter((id) => base !== 'pages' && !(post.tags ?? []).includes(id))];
      if (missing.length > 0) ctx.logger.warn({ postId: post.id, missing }, 'WordPress ignored category or tag ids it does not know');
      if (featured && post.featured_media !== featured.id) ctx.logger.warn({ postId: post.id, media: featured.id }, 'WordPress did not set the featured image');
      return { status: 'published', id: String(post.id), url: post.link ?? routeLink(site, base, post.id) };
    },

    /** The user's posts (or pages, by the post's type) since `since`, newest first, in every status. */
    async findRecent({ since, limit, settings }, ctx) {
      const site = creds(ctx);
      const userId = site.userId || (await me(ctx, site)).id;
      const base = restBaseOf(typeof settings?.type === 'string' ? settings.type : undefined);
      if (!REST_BASE.test(base)) return [];
      const out: { id: string; url: string; content: string; createdAt: string }[] = [];
      const after = new Date(since.getTime() - AFTER_MARGIN_MS).toISOString().slice(0, 19);
      for (let page = 1; out.length < limit && page <= 20; page++) {
        const res = await wpRequest(ctx, site, 'GET', `/wp/v2/${base}`, {
          query: { author: userId, context: 'edit', status: 'any', after, orderby: 'date', order: 'desc', per_page: Math.min(PER_PAGE, Math.max(limit, 10)), page },
        });
        const posts = wordpressResult<WpPost[]>(res, ctx.clock.now());
        if (!Array.isArray(posts) || posts.length === 0) break;
        for (const p of posts) {
          const at = createdAt(p);
          if (Date.parse(at) < since.getTime()) continue;
          out.push({ id: String(p.id), url: p.link ?? routeLink(site, base, p.id), content: htmlToText(p.content?.raw ?? p.content?.rendered ?? ''), createdAt: at });
          if (out.length >= limit) break;
        }
        if (!(page < Number(res.headers['x-wp-totalpages'] ?? '1'))) break;
      }
      return out.sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt));
    },

    async runTool(methodName, _data, ctx) {
      switch (methodName) {
        case 'postTypes': {
          const site = creds(ctx);
          const types = wordpressResult<Record<string, WpType>>(await wpRequest(ctx, site, 'GET', '/wp/v2/types', { query: { context: 'edit' } }), ctx.clock.now());
          return Object.entries(types ?? {})
            .filter(([slug, t]) => !INTERNAL_TYPES.has(slug) && typeof t.rest_base === 'string' && (t.rest_namespace ?? 'wp/v2') === 'wp/v2')
            .map(([slug, t]) => ({ id: t.rest_base as string, name: t.name ?? slug }));
        }
        case 'categoriesList':
        case 'categories':
          return listTerms(ctx, 'categories');
        case 'tagsList':
        case 'tags':
          return listTerms(ctx, 'tags');
        default:
          throw new PlatformError('unsupported', `WordPress has no tool ${methodName}`);
      }
    },
  };
}

/** Where a post is when WordPress gave no `link`: its REST resource's site, `?p=<id>`. */
function routeLink(site: Site, base: string, id: number): string {
  const root = new URL(site.restRoot);
  const home = `${root.origin}${root.pathname.replace(/\/wp-json\/?$|\/index\.php$|\/$/, '')}`;
  return base === 'pages' ? `${home}/?page_id=${id}` : `${home}/?p=${id}`;
}

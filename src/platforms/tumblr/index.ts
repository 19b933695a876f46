import { z } from 'zod';
import { readCredentials } from '../common/credentials.js';
import { mediaFileName } from '../common/media.js';
import { htmlToNpf, npfToText, type NpfTextBlock } from '../common/npf.js';
import { buildAuthorizeUrl, exchangeCode, refreshTokens, type OAuthApp, type TokenSet } from '../common/oauth2.js';
import {
  PlatformError,
  type AnalyticsSeries,
  type ConnectedAccount,
  type Credentials,
  type PlatformAdapter,
  type PostDraft,
  type PublishMedia,
  type ValidationIssue,
} from '../platform.js';
import { createPost, listingOf, listPosts, PAGE, postId, postsById, postUrl, userInfo, type TumblrBlog } from './client.js';
import { TUMBLR_STATES, tumblrMetadata } from './metadata.js';

const OAUTH = tumblrMetadata.oauth!;
/** Tumblr's own limits on tags (unverified: the web editor's). */
export const TAG_LIMITS = { count: 30, length: 140 } as const;

/** What a connected Tumblr channel stores (sealed by the caller). */
export interface TumblrCredentials {
  accessToken: string;
  refreshToken: string | null;
  /** ISO time the access token expires (about 42 minutes after issue) */
  expiresAt: string | null;
  /** the account's name (Tumblr's user/info `name`) */
  userName: string;
  /** the blog the channel posts to */
  blogUuid: string;
  blogName: string;
}

function requireApp(app: OAuthApp | undefined): OAuthApp {
  if (!app?.clientId || !app.clientSecret) throw new PlatformError('unsupported', 'Tumblr is not configured');
  return app;
}

const StoredCredentials = z.object({
  accessToken: z.string().min(1),
  refreshToken: z.string().nullish(),
  expiresAt: z.string().nullish(),
  userName: z.string().nullish(),
  blogUuid: z.string().min(1),
  blogName: z.string().min(1),
});

export function tumblrCreds(ctx: { credentials: Credentials }): TumblrCredentials {
  const c = readCredentials(ctx, StoredCredentials, 'Tumblr');
  return { accessToken: c.accessToken, refreshToken: c.refreshToken ?? null, expiresAt: c.expiresAt ?? null, userName: c.userName ?? c.blogName, blogUuid: c.blogUuid, blogName: c.blogName };
}

function blogAccount(blog: TumblrBlog, c: Omit<TumblrCredentials, 'blogUuid' | 'blogName'>): ConnectedAccount {
  const credentials: TumblrCredentials = { ...c, blogUuid: blog.uuid, blogName: blog.name };
  const avatar = [...(blog.avatar ?? [])].sort((a, b) => (b.width ?? 0) - (a.width ?? 0))[0]?.url ?? null;
  return {
    internalId: blog.uuid,
    name: blog.title?.trim() || blog.name,
    profile: blog.name,
    picture: avatar,
    credentials: { ...credentials },
    expiresAt: c.expiresAt ? new Date(c.expiresAt) : null,
  };
}

function tokenCredentials(tokens: TokenSet) {
  return { accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, expiresAt: tokens.expiresAt?.toISOString() ?? null };
}

const str = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);

/** `"#art, ink ,,x"` → `["art", "ink", "x"]`: Tumblr tags without `#`, empty ones dropped. */
export function tagsOf(value: unknown): string[] {
  if (typeof value !== 'string') return [];
  return value
    .split(',')
    .map((t) => t.trim().replace(/^#+/, '').trim())
    .filter((t) => t !== '');
}

/** An NPF media block for one stored media item, its file named `identifier` in the multipart request. */
function mediaBlock(m: PublishMedia, identifier: string): Record<string, unknown> {
  const object = { type: m.mimeType, identifier, ...(m.width ? { width: m.width } : {}), ...(m.height ? { height: m.height } : {}) };
  if (m.type === 'video') return { type: 'video', provider: 'tumblr', media: object };
  return { type: 'image', media: [object], ...(m.alt?.trim() ? { alt_text: m.alt.trim().slice(0, 4096) } : {}) };
}

/** The NPF post body of an item: title heading, the text blocks, the link, then the media. */
export function npfPost(content: string, settings: Record<string, unknown>, media: PublishMedia[]): { body: Record<string, unknown>; files: { identifier: string; media: PublishMedia }[] } {
  const blocks: (NpfTextBlock | Record<string, unknown>)[] = [];
  const title = str(settings.title);
  if (title) blocks.push({ type: 'text', subtype: 'heading1', text: title });
  blocks.push(...htmlToNpf(content));
  const link = str(settings.link);
  if (link) blocks.push({ type: 'link', url: link });
  const files = media.map((m, i) => ({ identifier: `media-${i}`, media: m }));
  for (const f of files) blocks.push(mediaBlock(f.media, f.identifier));
  const state = typeof settings.state === 'string' && (TUMBLR_STATES as readonly string[]).includes(settings.state) ? settings.state : 'published';
  const tags = tagsOf(settings.tags);
  const sourceUrl = str(settings.sourceUrl);
  return {
    body: { content: blocks, state, ...(tags.length > 0 ? { tags: tags.join(',') } : {}), ...(sourceUrl ? { source_url: sourceUrl } : {}) },
    files,
  };
}

/**
 * Creates the Tumblr adapter: OAuth 2 (client id and secret in the token request's form) with
 * access tokens of about 42 minutes and rotating refresh tokens (`offline_access`); the channel
 * is one blog of the account — the primary one at connect, another through the `blogs` tool and
 * `selectAccount`. Posts are NPF: the HTML becomes text blocks (`common/npf.ts`), the title a
 * heading, the link a link block, and pictures and a video travel in the same request as
 * multipart parts named by their blocks' identifiers. Tumblr has no replies an app can post
 * (only reblogs), so there are no thread items.
 */
export function createTumblrAdapter(config: { app?: OAuthApp } = {}): PlatformAdapter {
  return {
    metadata: tumblrMetadata,

    async beginConnect(input) {
      const app = requireApp(config.app);
      return { url: buildAuthorizeUrl(OAUTH, { clientId: app.clientId, redirectUri: input.redirectUri, state: input.state }) };
    },

    async completeConnect(input, ctx): Promise<ConnectedAccount> {
      const app = requireApp(config.app);
      const tokens = await exchangeCode(ctx.http, { tokenUrl: OAUTH.tokenUrl, app, code: input.code, redirectUri: input.redirectUri, clientAuth: 'body', now: ctx.clock.now() });
      if (tokens.scope !== null && !tokens.scope.split(/[\s,]+/).includes('write')) {
        throw new PlatformError('rejected', 'Tumblr did not grant the write permission: connect again and allow it');
      }
      const user = await userInfo(ctx, tokens.accessToken, tokens.refreshToken !== null);
      const blog = user.blogs.find((b) => b.primary) ?? user.blogs[0];
      if (!blog) throw new PlatformError('rejected', `The Tumblr account ${user.name} has no blog to post to`);
      return blogAccount(blog, { ...tokenCredentials(tokens), userName: user.name || blog.name });
    },

    /** Renews the access token; Tumblr rotates the refresh token, so the new one is returned to be stored. */
    async refresh(ctx) {
      const app = requireApp(config.app);
      const c = tumblrCreds(ctx);
      if (!c.refreshToken) throw new PlatformError('reconnect_required', 'No Tumblr refresh token is stored: reconnect the channel');
      const tokens = await refreshTokens(ctx.http, { tokenUrl: OAUTH.tokenUrl, app, refreshToken: c.refreshToken, clientAuth: 'body', now: ctx.clock.now() });
      return { credentials: { ...c, ...tokenCredentials(tokens) }, expiresAt: tokens.expiresAt };
    },

    /** Switches the channel to another blog of the account (by uuid or name, as the `blogs` tool lists them). */
    async selectAccount(id, ctx): Promise<ConnectedAccount> {
      const c = tumblrCreds(ctx);
      const user = await userInfo(ctx, c.accessToken, c.refreshToken !== null);
      const blog = user.blogs.find((b) => b.uuid === id || b.name === id);
      if (!blog) throw new PlatformError('rejected', `The Tumblr account ${c.userName} has no blog ${id}`);
      const { blogUuid: _u, blogName: _n, ...rest } = c;
      return blogAccount(blog, rest);
    },

    validate(post: PostDraft): ValidationIssue[] {
      const issues: ValidationIssue[] = [];
      const first = post.items[0];
      const hasText = first ? htmlToNpf(first.content).length > 0 : false;
      if (first && !hasText && first.media.length === 0 && !str(post.settings.title) && !str(post.settings.link)) {
        issues.push({ path: 'value.0.content', code: 'empty', message: 'A Tumblr post needs some text, a title, a link or media' });
      }
      const tags = tagsOf(post.settings.tags);
      if (tags.length > TAG_LIMITS.count) issues.push({ path: 'settings.tags', code: 'too_many_tags', message: `Tumblr takes up to ${TAG_LIMITS.count} tags; these are ${tags.length}` });
      const long = tags.find((t) => t.length > TAG_LIMITS.length);
      if (long) issues.push({ path: 'settings.tags', code: 'tag_too_long', message: `A Tumblr tag is at most ${TAG_LIMITS.length} characters: "${long.slice(0, 40)}…"` });
      return issues;
    },

    /**
     * Creates the post on the channel's blog; pictures and a video are sent in the same request
     * (multipart: the `json` part as `application/json`, then one part per file named by its
     * block's identifier),
     * streamed from storage. NOT idempotent: Tumblr would post twice, so an unknown outcome is
     * reconciled with `findRecent` (which looks in the queue or the drafts for those states).
     */
    async publish({ item, settings, replyTo }, ctx) {
      if (replyTo) throw new PlatformError('unsupported', 'Tumblr has no replies an app can post: thread items are not published');
      const c = tumblrCreds(ctx);
      const { body, files } = npfPost(item.content, settings, item.media);
      const parts = [];
      for (const f of files) parts.push({ identifier: f.identifier, name: mediaFileName(f.media), type: f.media.mimeType, blob: await ctx.openMedia(f.media) });
      const created = await createPost(ctx, c, c.blogUuid, body, parts);
      const id = postId(created ?? {});
      if (!id) throw new PlatformError('transient', 'Tumblr created the post without naming it', { outcomeUnknown: true });
      return { status: 'published', id, url: postUrl(c.blogName, id) };
    },

    async runTool(methodName, _data, ctx) {
      if (methodName !== 'blogs') throw new PlatformError('unsupported', `Tumblr has no tool "${methodName}"`);
      const c = tumblrCreds(ctx);
      const user = await userInfo(ctx, c.accessToken, c.refreshToken !== null);
      return user.blogs.map((b) => ({ id: b.uuid, name: b.name, title: b.title ?? b.name, url: b.url ?? `https://${b.name}.tumblr.com/`, primary: b.primary === true, current: b.uuid === c.blogUuid }));
    },

    /** The post's notes (likes, reblogs and replies together), as Tumblr counts them now: one figure for today. */
    async postAnalytics(id, _days, ctx): Promise<AnalyticsSeries[]> {
      const c = tumblrCreds(ctx);
      const post = (await postsById(ctx, c, c.blogUuid, id)).find((p) => postId(p) === id);
      if (!post) throw new PlatformError('rejected', `Tumblr has no post ${id} on ${c.blogName}`);
      const date = new Date(ctx.clock.now()).toISOString().slice(0, 10);
      return [{ label: 'Notes', percentageChange: 0, data: [{ total: Number(post.note_count ?? 0) || 0, date }] }];
    },

    /**
     * The blog's posts since `since`, newest first: its published posts, or its queue or drafts
     * when the post being reconciled asked for that state. Tumblr has no thread items to look for.
     */
    async findRecent({ since, limit, replyTo, settings }, ctx) {
      if (replyTo) throw new PlatformError('unsupported', 'Tumblr has no replies an app can post');
      const c = tumblrCreds(ctx);
      const out: { id: string; url: string; content: string; createdAt: string }[] = [];
      const listing = listingOf(settings?.state);
      for (let offset = 0, page = 0; page < 10 && out.length < limit; page++, offset += PAGE) {
        const posts = await listPosts(ctx, c, c.blogUuid, listing, offset);
        let older = false;
        for (const p of posts) {
          const at = typeof p.timestamp === 'number' ? p.timestamp * 1000 : Number.NaN;
          // Queued posts carry their planned time, drafts their creation: only published posts are cut by date.
          if (listing === '/posts' && at < since.getTime()) {
            older = true;
            continue;
          }
          const id = postId(p);
          out.push({ id, url: postUrl(c.blogName, id), content: npfToText(p.content ?? []) || (p.summary ?? ''), createdAt: Number.isNaN(at) ? '' : new Date(at).toISOString() });
        }
        if (older || posts.length < PAGE) break;
      }
      return out.slice(0, limit);
    },
  };
}

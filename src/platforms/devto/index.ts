import { htmlToMarkdown } from '../common/markdown.js';
import {
  PlatformError,
  type AnalyticsSeries,
  type ConnectedAccount,
  type OperationContext,
  type PlatformAdapter,
  type PostDraft,
  type PublishResult,
  type ValidationIssue,
} from '../platform.js';
import { devtoError, devtoOk } from './errors.js';
import { DevtoCredentialsSchema, devtoMetadata } from './metadata.js';

export const DEVTO_API = 'https://dev.to/api';
/** Forem API v1 is chosen by this Accept header (without it DEV answers the deprecated v0). */
const ACCEPT = 'application/vnd.forem.api-v1+json';
/** DEV takes at most 4 tags of letters and digits. */
const TAG_RE = /^[a-z0-9]+$/i;
const MAX_TAGS = 4;
/** Articles read per page of `/articles/me/all` (DEV allows up to 1000). */
const PAGE_SIZE = 100;
const MAX_PAGES = 10;

export interface DevtoCredentials {
  apiKey: string;
}

/** DEV's article as `/articles` and `/articles/me/*` answer it (the fields used here). */
export interface DevtoArticle {
  id: number;
  title: string;
  url: string;
  slug?: string;
  published?: boolean;
  published_at?: string | null;
  created_at?: string;
  body_markdown?: string;
  page_views_count?: number;
  public_reactions_count?: number;
  comments_count?: number;
  organization?: { username?: string; name?: string } | null;
}

interface DevtoUser {
  id: number;
  username: string;
  name?: string | null;
  profile_image?: string | null;
}

interface DevtoSettings {
  title?: string;
  main_image?: { id?: string; path?: string };
  canonical?: string;
  organization?: string;
  series?: string;
  tags?: { value: number; label: string }[];
}

function creds(ctx: { credentials: Record<string, unknown> }): DevtoCredentials {
  const key = ctx.credentials.apiKey;
  if (typeof key !== 'string' || key === '') throw new PlatformError('reconnect_required', 'Stored DEV credentials are incomplete', { field: 'apiKey' });
  return { apiKey: key };
}

function headers(apiKey: string): Record<string, string> {
  return { 'api-key': apiKey, accept: ACCEPT };
}

async function get<T>(ctx: Pick<OperationContext, 'http'>, apiKey: string, path: string): Promise<T> {
  return devtoOk<T>(await ctx.http.request({ method: 'GET', url: `${DEVTO_API}${path}`, headers: headers(apiKey) }));
}

/** DEV tags are lower-case letters and digits; labels are sent as DEV names them. */
function tagNames(tags: DevtoSettings['tags']): string[] {
  return (tags ?? []).map((t) => t.label.trim().toLowerCase()).filter((t) => t !== '');
}

/** The cover DEV pulls: the `main_image` setting, else the post's picture; DEV fetches it itself, so it must be https. */
export function coverUrlOf(settings: DevtoSettings, media: { path: string; type: string }[]): string | undefined {
  const path = settings.main_image?.path ?? media.find((m) => m.type === 'image')?.path;
  if (!path) return undefined;
  if (!/^https:\/\//i.test(path)) {
    throw new PlatformError('rejected', `DEV fetches the cover picture from its public address, and ${path} is not https: set PUBLIC_URL (or S3_PUBLIC_URL) to an https address DEV can reach`);
  }
  return path;
}

function settingsIssues(settings: Record<string, unknown>): ValidationIssue[] {
  const s = settings as DevtoSettings;
  const issues: ValidationIssue[] = [];
  for (const [i, t] of (s.tags ?? []).entries()) {
    if (typeof t?.label === 'string' && !TAG_RE.test(t.label.trim())) {
      issues.push({ path: `settings.tags.${i}`, code: 'tag_alphanumeric', message: `DEV tags are letters and digits only: "${t.label}"` });
    }
  }
  if (s.organization !== undefined && s.organization !== '' && !/^\d+$/.test(s.organization)) {
    issues.push({ path: 'settings.organization', code: 'organization_id', message: 'Pick the organization from the list (DEV wants its numeric id)' });
  }
  return issues;
}

/** The account's articles, newest first, page by page (published ones first, as DEV lists them). */
async function* myArticles(ctx: Pick<OperationContext, 'http'>, apiKey: string, perPage = PAGE_SIZE): AsyncGenerator<DevtoArticle> {
  for (let page = 1; page <= MAX_PAGES; page++) {
    const list = await get<DevtoArticle[]>(ctx, apiKey, `/articles/me/all?page=${page}&per_page=${perPage}`);
    if (!Array.isArray(list)) return;
    for (const a of list) yield a;
    if (list.length < perPage) return;
  }
}

const today = (now: number) => new Date(now).toISOString().slice(0, 10);

/**
 * Creates the DEV (Forem) adapter: an API key (the `api-key` header), articles published from the
 * post (its HTML converted to Markdown), with title, ≤ 4 tags, canonical URL, series, organization
 * and a cover DEV pulls from the media's public URL; the account's articles for reconciliation,
 * and each article's views, reactions and comments as post analytics.
 */
export function createDevtoAdapter(): PlatformAdapter {
  return {
    metadata: devtoMetadata,

    async connectWithCredentials(input, ctx): Promise<ConnectedAccount> {
      const { apiKey } = DevtoCredentialsSchema.parse(input);
      let user: DevtoUser;
      try {
        user = await get<DevtoUser>(ctx, apiKey.trim(), '/users/me');
      } catch (e) {
        if (e instanceof PlatformError && e.kind !== 'transient' && e.kind !== 'rate_limited') {
          throw new PlatformError('rejected', `DEV refused the API key: ${e.message.replace(/^DEV refused the API key: /, '')}`, { field: 'apiKey', status: e.details.status });
        }
        throw e;
      }
      if (!user?.id) throw new PlatformError('transient', 'DEV answered /users/me without a user');
      return {
        internalId: String(user.id),
        name: user.name?.trim() || user.username,
        profile: user.username,
        picture: user.profile_image ?? null,
        credentials: { apiKey: apiKey.trim() } satisfies DevtoCredentials,
        expiresAt: null,
      };
    },

    validate(post: PostDraft) {
      return settingsIssues(post.settings);
    },

    /**
     * Not idempotent: DEV has no idempotency key (only a canonical URL, which it keeps unique per
     * article). Published at once (`published: true`); thread items cannot be articles.
     */
    async publish({ item, settings, replyTo }, ctx): Promise<PublishResult> {
      if (replyTo) throw new PlatformError('unsupported', 'DEV articles have no replies an app can post');
      const { apiKey } = creds(ctx);
      const s = settings as DevtoSettings;
      const title = s.title?.trim();
      if (!title) throw new PlatformError('rejected', 'A DEV article needs a title (settings.title)');
      const issues = settingsIssues(settings);
      if (issues.length > 0) throw new PlatformError('rejected', issues[0]!.message);
      const tags = tagNames(s.tags);
      if (tags.length > MAX_TAGS) throw new PlatformError('rejected', `DEV takes at most ${MAX_TAGS} tags`);
      const cover = coverUrlOf(s, item.media);
      const article = {
        title,
        body_markdown: htmlToMarkdown(item.content),
        published: true,
        ...(tags.length > 0 ? { tags } : {}),
        ...(s.canonical ? { canonical_url: s.canonical } : {}),
        ...(s.series?.trim() ? { series: s.series.trim() } : {}),
        ...(s.organization ? { organization_id: Number(s.organization) } : {}),
        ...(cover ? { main_image: cover } : {}),
      };
      const res = await ctx.http.request({ method: 'POST', url: `${DEVTO_API}/articles`, headers: { ...headers(apiKey), 'content-type': 'application/json' }, body: { article } });
      const err = devtoError(res);
      if (err) throw err;
      const a = res.body as DevtoArticle;
      if (!a?.id || !a.url) throw new PlatformError('transient', 'DEV created the article without naming it', { outcomeUnknown: true });
      return { status: 'published', id: String(a.id), url: a.url };
    },

    /** The account's published articles since `since`, newest first, with their Markdown. */
    async findRecent({ since, limit, replyTo }, ctx) {
      if (replyTo) throw new PlatformError('unsupported', 'DEV articles have no replies an app can post');
      const { apiKey } = creds(ctx);
      const out: { id: string; url: string; content: string; createdAt: string }[] = [];
      for await (const a of myArticles(ctx, apiKey)) {
        // Unpublished drafts come after the published ones: nothing this adapter made.
        if (a.published === false || !a.published_at) break;
        const at = Date.parse(a.published_at);
        if (at < since.getTime()) break;
        out.push({ id: String(a.id), url: a.url, content: a.body_markdown ?? '', createdAt: new Date(at).toISOString() });
        if (out.length >= limit) break;
      }
      return out;
    },

    /** DEV's lifetime figures of one article (views, reactions, comments), as today's totals. */
    async postAnalytics(postId, _days, ctx): Promise<AnalyticsSeries[]> {
      const { apiKey } = creds(ctx);
      let found: DevtoArticle | undefined;
      for await (const a of myArticles(ctx, apiKey)) {
        if (String(a.id) === postId) {
          found = a;
          break;
        }
      }
      if (!found) throw new PlatformError('rejected', `DEV article ${postId} is not among this account's articles`);
      const date = today(ctx.clock.now());
      const point = (label: string, n: number | undefined): AnalyticsSeries => ({ label, percentageChange: 0, data: [{ date, total: Number(n ?? 0) || 0 }] });
      return [point('Views', found.page_views_count), point('Reactions', found.public_reactions_count), point('Comments', found.comments_count)];
    },

    async runTool(methodName, _data, ctx) {
      const { apiKey } = creds(ctx);
      if (methodName === 'tags') {
        const tags = await get<{ id: number; name: string }[]>(ctx, apiKey, '/tags?per_page=1000&page=1');
        return (Array.isArray(tags) ? tags : []).map((t) => ({ value: t.id, label: t.name }));
      }
      if (methodName === 'organizations') {
        // DEV has no "my organizations" endpoint: the organizations the account has published
        // under are read from its articles, then each one's id from /organizations/{username}.
        const usernames = new Set<string>();
        for await (const a of myArticles(ctx, apiKey)) if (a.organization?.username) usernames.add(a.organization.username);
        const orgs = [];
        for (const username of usernames) {
          const o = await get<{ id: number; name: string; username: string }>(ctx, apiKey, `/organizations/${encodeURIComponent(username)}`);
          orgs.push({ id: String(o.id), name: o.name, username: o.username });
        }
        return orgs;
      }
      throw new PlatformError('unsupported', `DEV has no tool "${methodName}"`);
    },
  };
}

import { z } from 'zod';
import { httpsCoverUrl, lifetimeTotals, refusedOnConnect } from '../common/article-helpers.js';
import { readCredentials } from '../common/credentials.js';
import { htmlToMarkdown } from '../common/markdown.js';
import {
  PlatformError,
  type AnalyticsSeries,
  type ConnectedAccount,
  type PlatformAdapter,
  type PostDraft,
  type PublishResult,
  type ValidationIssue,
} from '../platform.js';
import { createArticle, get, myArticles, type DevtoArticle, type DevtoUser } from './client.js';
import { DevtoCredentialsSchema, devtoMetadata } from './metadata.js';

/** DEV takes at most 4 tags of letters and digits. */
const TAG_RE = /^[a-z0-9]+$/i;
const MAX_TAGS = 4;

/** What a DEV channel stores: the API key. */
const StoredCredentials = z.object({ apiKey: z.string().min(1) });
export type DevtoCredentials = z.output<typeof StoredCredentials>;

interface DevtoSettings {
  title?: string;
  main_image?: { id?: string; path?: string };
  canonical?: string;
  organization?: string;
  series?: string;
  tags?: { value: number; label: string }[];
}

const creds = (ctx: { credentials: Record<string, unknown> }) => readCredentials(ctx, StoredCredentials, 'DEV');

/** DEV tags are lower-case letters and digits; labels are sent as DEV names them. */
function tagNames(tags: DevtoSettings['tags']): string[] {
  return (tags ?? []).map((t) => t.label.trim().toLowerCase()).filter((t) => t !== '');
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
      const user = await get<DevtoUser>(ctx, apiKey.trim(), '/users/me').catch((e: unknown) => refusedOnConnect(e, 'DEV refused the API key: ', 'apiKey'));
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
      // DEV pulls the cover itself from its public (https) address.
      const cover = httpsCoverUrl('DEV', s, item.media);
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
      const a = await createArticle(ctx, apiKey, article);
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
      return lifetimeTotals(ctx.clock.now(), [
        ['Views', found.page_views_count],
        ['Reactions', found.public_reactions_count],
        ['Comments', found.comments_count],
      ]);
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

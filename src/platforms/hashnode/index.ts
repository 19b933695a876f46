import { z } from 'zod';
import { httpsCoverUrl, lifetimeTotals, refusedOnConnect } from '../common/article-helpers.js';
import { readCredentials } from '../common/credentials.js';
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
import { me, myPublications, postFigures, postsOf, publishPost, tagBySlug } from './client.js';
import { HashnodeCredentialsSchema, hashnodeMetadata } from './metadata.js';

const OBJECT_ID = /^[0-9a-f]{24}$/i;
const TAG_SLUG = /^[a-z0-9][a-z0-9-]*$/;

/** What a Hashnode channel stores: the personal access token. */
const StoredCredentials = z.object({ token: z.string().min(1) });
export type HashnodeCredentials = z.output<typeof StoredCredentials>;

interface HashnodeSettings {
  title?: string;
  subtitle?: string;
  main_image?: { id?: string; path?: string };
  canonical?: string;
  publication?: string;
  tags?: { value: string; label: string }[];
}

const creds = (ctx: { credentials: Record<string, unknown> }) => readCredentials(ctx, StoredCredentials, 'Hashnode');

function settingsIssues(settings: Record<string, unknown>): ValidationIssue[] {
  const s = settings as HashnodeSettings;
  const issues: ValidationIssue[] = [];
  for (const [i, t] of (s.tags ?? []).entries()) {
    const v = typeof t?.value === 'string' ? t.value.trim() : '';
    if (v !== '' && !OBJECT_ID.test(v) && !TAG_SLUG.test(v.toLowerCase())) {
      issues.push({ path: `settings.tags.${i}`, code: 'tag_slug', message: `"${t.value}" is neither a Hashnode tag id nor a tag slug (letters, digits and dashes)` });
    }
  }
  if (s.publication !== undefined && s.publication !== '' && !OBJECT_ID.test(s.publication)) {
    issues.push({ path: 'settings.publication', code: 'publication_id', message: 'Pick the publication from the list (Hashnode wants its id)' });
  }
  return issues;
}

/**
 * Creates the Hashnode adapter: a personal access token (the `Authorization` header), posts
 * published with the GraphQL `publishPost` mutation into the chosen publication, with title,
 * subtitle, 1–5 tags (ids, or slugs looked up with `tag(slug:)`), the canonical URL
 * (`originalArticleURL`), a cover Hashnode pulls from the media's public URL and the post's HTML
 * converted to Markdown; the publication's posts for reconciliation; views, reactions and
 * responses of a post as analytics.
 */
export function createHashnodeAdapter(): PlatformAdapter {
  /** Tag ids for the settings' tags: ids as they are, slugs looked up (unknown ones refused, naming them). */
  async function tagIds(ctx: OperationContext, token: string, tags: HashnodeSettings['tags']): Promise<{ id: string }[]> {
    const out: { id: string }[] = [];
    for (const t of tags ?? []) {
      const v = t.value.trim();
      if (OBJECT_ID.test(v)) {
        out.push({ id: v.toLowerCase() });
        continue;
      }
      const tag = await tagBySlug(ctx, token, v.toLowerCase());
      if (!tag?.id) throw new PlatformError('rejected', `Hashnode has no tag "${t.label || v}" (slug "${v.toLowerCase()}")`);
      out.push({ id: tag.id });
    }
    return out;
  }

  return {
    metadata: hashnodeMetadata,

    async connectWithCredentials(input, ctx): Promise<ConnectedAccount> {
      const token = HashnodeCredentialsSchema.parse(input).token.trim();
      const user = await me(ctx, token).catch((e: unknown) => refusedOnConnect(e, 'Hashnode refused the token: ', 'token'));
      if (!user?.id) throw new PlatformError('rejected', 'Hashnode did not recognise this token', { field: 'token' });
      return {
        internalId: user.id,
        name: user.name?.trim() || user.username,
        profile: user.username,
        picture: user.profilePicture ?? null,
        credentials: { token } satisfies HashnodeCredentials,
        expiresAt: null,
      };
    },

    validate(post: PostDraft) {
      return settingsIssues(post.settings);
    },

    /**
     * Not idempotent: `publishPost` has no idempotency key; a retried call publishes twice (the
     * publisher reconciles with `findRecent` instead). Thread items cannot be posts.
     */
    async publish({ item, settings, replyTo }, ctx): Promise<PublishResult> {
      if (replyTo) throw new PlatformError('unsupported', 'Hashnode posts have no replies an app can post');
      const { token } = creds(ctx);
      const s = settings as HashnodeSettings;
      const title = s.title?.trim();
      if (!title) throw new PlatformError('rejected', 'A Hashnode post needs a title (settings.title)');
      if (!s.publication) throw new PlatformError('rejected', 'A Hashnode post needs a publication (settings.publication)');
      const issues = settingsIssues(settings);
      if (issues.length > 0) throw new PlatformError('rejected', issues[0]!.message);
      // Hashnode pulls the cover itself from its public (https) address.
      const cover = httpsCoverUrl('Hashnode', s, item.media);
      const tags = await tagIds(ctx, token, s.tags);
      const input = {
        title,
        publicationId: s.publication,
        contentMarkdown: htmlToMarkdown(item.content),
        tags,
        ...(s.subtitle?.trim() ? { subtitle: s.subtitle.trim() } : {}),
        ...(s.canonical ? { originalArticleURL: s.canonical } : {}),
        ...(cover ? { coverImageOptions: { coverImageURL: cover } } : {}),
      };
      const post = await publishPost(ctx, token, input);
      if (!post?.id || !post.url) throw new PlatformError('transient', 'Hashnode published the post without naming it', { outcomeUnknown: true });
      return { status: 'published', id: post.id, url: post.url };
    },

    /** The posts since `since` of the post's publication (or, without one, of every publication of the account), newest first. */
    async findRecent({ since, limit, replyTo, settings }, ctx) {
      if (replyTo) throw new PlatformError('unsupported', 'Hashnode posts have no replies an app can post');
      const { token } = creds(ctx);
      const chosen = typeof settings?.publication === 'string' && settings.publication !== '' ? [settings.publication] : (await myPublications(ctx, token)).map((p) => p.id);
      const out: { id: string; url: string; content: string; createdAt: string }[] = [];
      for (const id of chosen) {
        for await (const p of postsOf(ctx, token, id)) {
          const at = p.publishedAt ? Date.parse(p.publishedAt) : Number.NaN;
          if (at < since.getTime()) break;
          out.push({ id: p.id, url: p.url, content: p.content?.markdown ?? '', createdAt: Number.isNaN(at) ? '' : new Date(at).toISOString() });
        }
      }
      return out.sort((a, b) => b.createdAt.localeCompare(a.createdAt)).slice(0, limit);
    },

    /** Hashnode's lifetime figures of one post (views, reactions, responses), as today's totals. */
    async postAnalytics(postId, _days, ctx): Promise<AnalyticsSeries[]> {
      const { token } = creds(ctx);
      const post = await postFigures(ctx, token, postId);
      if (!post) throw new PlatformError('rejected', `Hashnode has no post ${postId}`);
      return lifetimeTotals(ctx.clock.now(), [
        ['Views', post.views],
        ['Reactions', post.reactionCount],
        ['Responses', post.responseCount],
      ]);
    },

    async runTool(methodName, _data, ctx) {
      const { token } = creds(ctx);
      if (methodName === 'publications') {
        return (await myPublications(ctx, token)).map((p) => ({ id: p.id, name: p.title, url: p.url }));
      }
      if (methodName === 'tagsList') {
        // Hashnode's API has no tag listing: the tags already used on the account's publications
        // are offered (any other tag can be given by its slug).
        const seen = new Map<string, { value: string; label: string }>();
        for (const pub of await myPublications(ctx, token)) {
          for await (const p of postsOf(ctx, token, pub.id)) for (const t of p.tags ?? []) if (!seen.has(t.slug)) seen.set(t.slug, { value: t.slug, label: t.name });
        }
        return [...seen.values()].sort((a, b) => a.label.localeCompare(b.label));
      }
      throw new PlatformError('unsupported', `Hashnode has no tool "${methodName}"`);
    },
  };
}

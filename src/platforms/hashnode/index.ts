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
import { hashnodeError } from './errors.js';
import { HashnodeCredentialsSchema, hashnodeMetadata } from './metadata.js';

export const HASHNODE_GQL = 'https://gql.hashnode.com';
const OBJECT_ID = /^[0-9a-f]{24}$/i;
const TAG_SLUG = /^[a-z0-9][a-z0-9-]*$/;
/** Posts read per page of a publication (Hashnode caps connections). */
const PAGE_SIZE = 20;
const MAX_PAGES = 5;

export interface HashnodeCredentials {
  token: string;
}

interface HashnodeSettings {
  title?: string;
  subtitle?: string;
  main_image?: { id?: string; path?: string };
  canonical?: string;
  publication?: string;
  tags?: { value: string; label: string }[];
}

interface PostNode {
  id: string;
  url: string;
  title?: string;
  publishedAt?: string;
  content?: { markdown?: string };
  tags?: { id: string; name: string; slug: string }[] | null;
}

interface Connection<T> {
  edges: { node: T; cursor?: string }[];
  pageInfo?: { hasNextPage?: boolean; endCursor?: string | null };
}

const Q = {
  me: 'query Me { me { id username name profilePicture } }',
  publications: 'query MyPublications($first: Int!) { me { id publications(first: $first) { edges { node { id title url } } } } }',
  tag: 'query TagBySlug($slug: String!) { tag(slug: $slug) { id name slug } }',
  publish: 'mutation PublishPost($input: PublishPostInput!) { publishPost(input: $input) { post { id slug url title } } }',
  posts:
    'query PublicationPosts($id: ObjectId!, $first: Int!, $after: String) { publication(id: $id) { id posts(first: $first, after: $after) { edges { node { id url title publishedAt content { markdown } tags { id name slug } } } pageInfo { hasNextPage endCursor } } } }',
  post: 'query PostFigures($id: ID!) { post(id: $id) { id views reactionCount responseCount } }',
};

function creds(ctx: { credentials: Record<string, unknown> }): HashnodeCredentials {
  const token = ctx.credentials.token;
  if (typeof token !== 'string' || token === '') throw new PlatformError('reconnect_required', 'Stored Hashnode credentials are incomplete', { field: 'token' });
  return { token };
}

/** One GraphQL operation: its `data`, or the classified error (errors arrive inside HTTP 200 too). */
async function gql<T>(ctx: Pick<OperationContext, 'http'>, token: string, query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const operationName = /^(?:query|mutation)\s+(\w+)/.exec(query)?.[1];
  const res = await ctx.http.request({ method: 'POST', url: HASHNODE_GQL, headers: { authorization: token, 'content-type': 'application/json' }, body: { query, variables, operationName } });
  const err = hashnodeError(res);
  if (err) throw err;
  const data = (res.body as { data?: T } | undefined)?.data;
  if (!data) throw new PlatformError('transient', 'Hashnode answered without data');
  return data;
}

/** The cover Hashnode pulls: the `main_image` setting, else the post's picture; it must be reachable over https. */
export function coverUrlOf(settings: HashnodeSettings, media: { path: string; type: string }[]): string | undefined {
  const path = settings.main_image?.path ?? media.find((m) => m.type === 'image')?.path;
  if (!path) return undefined;
  if (!/^https:\/\//i.test(path)) {
    throw new PlatformError('rejected', `Hashnode fetches the cover picture from its public address, and ${path} is not https: set PUBLIC_URL (or S3_PUBLIC_URL) to an https address Hashnode can reach`);
  }
  return path;
}

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
      const { tag } = await gql<{ tag: { id: string } | null }>(ctx, token, Q.tag, { slug: v.toLowerCase() });
      if (!tag?.id) throw new PlatformError('rejected', `Hashnode has no tag "${t.label || v}" (slug "${v.toLowerCase()}")`);
      out.push({ id: tag.id });
    }
    return out;
  }

  async function myPublications(ctx: OperationContext, token: string) {
    const data = await gql<{ me: { publications: Connection<{ id: string; title: string; url: string }> } | null }>(ctx, token, Q.publications, { first: 50 });
    return (data.me?.publications.edges ?? []).map((e) => e.node);
  }

  async function* postsOf(ctx: OperationContext, token: string, publicationId: string): AsyncGenerator<PostNode> {
    let after: string | null | undefined = null;
    for (let page = 0; page < MAX_PAGES; page++) {
      const data: { publication: { posts: Connection<PostNode> } | null } = await gql(ctx, token, Q.posts, { id: publicationId, first: PAGE_SIZE, after });
      if (!data.publication) throw new PlatformError('rejected', `Hashnode has no publication ${publicationId}`);
      for (const e of data.publication.posts.edges) yield e.node;
      after = data.publication.posts.pageInfo?.endCursor;
      if (!data.publication.posts.pageInfo?.hasNextPage || !after) return;
    }
  }

  return {
    metadata: hashnodeMetadata,

    async connectWithCredentials(input, ctx): Promise<ConnectedAccount> {
      const token = HashnodeCredentialsSchema.parse(input).token.trim();
      let me: { id: string; username: string; name?: string | null; profilePicture?: string | null } | null;
      try {
        me = (await gql<{ me: typeof me }>(ctx, token, Q.me)).me;
      } catch (e) {
        if (e instanceof PlatformError && e.kind !== 'transient' && e.kind !== 'rate_limited') {
          throw new PlatformError('rejected', `Hashnode refused the token: ${e.message.replace(/^Hashnode refused the token: /, '')}`, { field: 'token', status: e.details.status });
        }
        throw e;
      }
      if (!me?.id) throw new PlatformError('rejected', 'Hashnode did not recognise this token', { field: 'token' });
      return {
        internalId: me.id,
        name: me.name?.trim() || me.username,
        profile: me.username,
        picture: me.profilePicture ?? null,
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
      const cover = coverUrlOf(s, item.media);
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
      const data = await gql<{ publishPost: { post: { id: string; url: string } | null } | null }>(ctx, token, Q.publish, { input });
      const post = data.publishPost?.post;
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
      const { post } = await gql<{ post: { views?: number | null; reactionCount?: number; responseCount?: number } | null }>(ctx, token, Q.post, { id: postId });
      if (!post) throw new PlatformError('rejected', `Hashnode has no post ${postId}`);
      const date = new Date(ctx.clock.now()).toISOString().slice(0, 10);
      const point = (label: string, n: number | null | undefined): AnalyticsSeries => ({ label, percentageChange: 0, data: [{ date, total: Number(n ?? 0) || 0 }] });
      return [point('Views', post.views), point('Reactions', post.reactionCount), point('Responses', post.responseCount)];
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

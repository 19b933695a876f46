import { z } from 'zod';
import { readCredentials } from '../common/credentials.js';
import { htmlToMarkdown } from '../common/markdown.js';
import {
  PlatformError,
  type AnalyticsSeries,
  type ConnectedAccount,
  type OperationContext,
  type PlatformAdapter,
  type PublishResult,
  type ValidationIssue,
} from '../platform.js';
import { login, recentOfAccount, send, Session, uploadPicture, type Comment, type CommunityView, type LemmyCredentials, type Person, type Post, type PostView } from './client.js';
import { lemmyResult } from './errors.js';
import { LemmyCredentialsSchema, LemmySettingsSchema, lemmyMetadata } from './metadata.js';

/**
 * Lemmy (HTTP API v3, Lemmy ≥ 0.19) on the instance the user typed. The account logs in with its
 * username (or email) and password → a JWT sent as `Authorization: Bearer`. The password is kept
 * in the sealed credentials: when Lemmy says the session is gone (`not_logged_in`), the call
 * fails `auth_expired` and `refresh` logs in again (channel access does that transparently).
 *
 * Ids:
 * - channel `internalId`: the person's `actor_id` (`https://<instance>/u/<name>`), Lemmy's own
 *   global id of the account;
 * - a post: Lemmy's post id; posted to several communities, the ids joined with commas in the
 *   order of `settings.subreddit` (`"4201,4202"`, as the reference implementation names them);
 * - a thread item: `comment:<id>` (`comment:<id>,<id>` for several communities: one comment under
 *   each post, nested under the previous item's comment of the same post).
 */

export const LEMMY_TITLE_MIN = 3;
export const LEMMY_TITLE_MAX = 200;
/** Lemmy 0.19 is the first version taking `Authorization: Bearer` (0.18 wanted `auth` in every body). */
const MIN_VERSION = [0, 19];

interface Target {
  communityId: number;
  name: string;
  title: string;
  url?: string;
}

interface Recent {
  id: string;
  url: string;
  content: string;
  createdAt: string;
}

/** `lemmy.world`, `https://lemmy.world/c/x` → `https://lemmy.world`. */
export function lemmyInstance(raw: string | null | undefined): string {
  const value = (raw ?? '').trim();
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `https://${value}`);
  } catch {
    throw new PlatformError('rejected', `"${value}" is not the address of a Lemmy instance`, { field: 'instanceUrl' });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new PlatformError('rejected', `Only http(s) instances are supported, not ${url.protocol}`, { field: 'instanceUrl' });
  return url.origin;
}

/** What a Lemmy channel stores (the instance may come from the channel instead, as older channels did). */
const StoredCredentials = z.object({
  instanceUrl: z.string().nullish(),
  username: z.string().min(1),
  password: z.string().min(1),
  jwt: z.string().nullish(),
  personId: z.number(),
  personName: z.string().min(1),
});

function creds(ctx: Pick<OperationContext, 'credentials' | 'instanceUrl'>): LemmyCredentials {
  const c = readCredentials(ctx, StoredCredentials, 'Lemmy');
  const instance = c.instanceUrl ?? ctx.instanceUrl;
  if (!instance) throw new PlatformError('reconnect_required', 'Stored Lemmy credentials are incomplete', { field: 'instanceUrl' });
  return { instanceUrl: lemmyInstance(instance), username: c.username, password: c.password, jwt: c.jwt ?? '', personId: c.personId, personName: c.personName };
}

function versionAtLeast(version: unknown, min: number[]): boolean {
  if (typeof version !== 'string') return true;
  const parts = version.replace(/^v/, '').split(/[.-]/).map((n) => Number.parseInt(n, 10));
  for (let i = 0; i < min.length; i++) {
    const v = parts[i] ?? 0;
    if (Number.isNaN(v)) return true;
    if (v !== min[i]) return v > min[i]!;
  }
  return true;
}

/** Lemmy's title rule (validation.rs `is_valid_post_title`): 3–200 characters once trimmed, one line. */
export function lemmyTitleProblem(title: string): string | undefined {
  const length = [...title.trim()].length;
  if (/[\r\n]/.test(title)) return 'A Lemmy title must be on one line';
  if (length < LEMMY_TITLE_MIN || length > LEMMY_TITLE_MAX) return `A Lemmy title must be ${LEMMY_TITLE_MIN}–${LEMMY_TITLE_MAX} characters (this one has ${length})`;
  return undefined;
}

function targetsOf(settings: Record<string, unknown> | undefined): Target[] {
  const parsed = LemmySettingsSchema.safeParse(settings ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new PlatformError('rejected', `Lemmy settings: ${issue ? `${['settings', ...issue.path].join('.')}: ${issue.message}` : 'invalid'}`);
  }
  return parsed.data.subreddit.map(({ value }) => {
    const communityId = Number(value.id);
    if (!Number.isSafeInteger(communityId) || communityId <= 0) throw new PlatformError('rejected', `"${value.id}" is not a Lemmy community id`);
    return { communityId, name: value.subreddit, title: value.title, ...(value.url ? { url: value.url } : {}) };
  });
}

/** `"4201,4202"` → [4201, 4202]; `comment:` ids with `prefix`. */
function idsOf(id: string, prefix = ''): number[] {
  if (prefix && !id.startsWith(prefix)) throw new PlatformError('rejected', `"${id}" is not a Lemmy ${prefix.replace(':', '')} id`);
  const ids = id.slice(prefix.length).split(',').map((s) => Number(s.trim()));
  if (ids.length === 0 || ids.some((n) => !Number.isSafeInteger(n) || n <= 0)) throw new PlatformError('rejected', `"${id}" is not a Lemmy id`);
  return ids;
}

/** The parent comment id of an ltree path `0.12.34` (undefined for a top-level comment). */
function parentOf(path: string): number | undefined {
  const parts = path.split('.');
  const parent = parts.length >= 3 ? Number(parts[parts.length - 2]) : undefined;
  return parent && parent > 0 ? parent : undefined;
}

/**
 * Entries found under each target (one list per community post, in order) joined into the ids
 * publish gives: one entry per item found under every target with the same content, newest first.
 * Items not found under all targets are listed alone, so a partial post is still recognised.
 */
function combine(lists: Recent[][], prefix: string, key: (r: Recent) => string): Recent[] {
  const used = lists.map(() => new Set<string>());
  const out: Recent[] = [];
  for (const first of lists[0] ?? []) {
    const matches = lists.map((list, i) => (i === 0 ? first : list.find((r) => !used[i]!.has(r.id) && key(r) === key(first))));
    if (matches.every(Boolean)) {
      matches.forEach((m, i) => used[i]!.add(m!.id));
      out.push({ ...first, id: `${prefix}${matches.map((m) => m!.id).join(',')}` });
    }
  }
  lists.forEach((list, i) => list.filter((r) => !used[i]!.has(r.id)).forEach((r) => out.push({ ...r, id: `${prefix}${r.id}` })));
  return out.sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt));
}

function series(label: string, total: number, now: number): AnalyticsSeries {
  // Lemmy keeps no history of a post's figures: one point, today.
  return { label, percentageChange: 0, data: [{ total, date: new Date(now).toISOString().slice(0, 10) }] };
}

/** Creates the Lemmy adapter. */
export function createLemmyAdapter(): PlatformAdapter {
  /** Runs `each` for every target; a failure after some succeeded says which went out and never retries (no duplicates). */
  async function forEachTarget<T, R>(targets: T[], label: (t: T) => string, each: (t: T) => Promise<R>, s: Session, describe: (r: R) => string): Promise<R[]> {
    const done: R[] = [];
    for (const t of targets) {
      try {
        done.push(await each(t));
        s.wrote = true;
      } catch (e) {
        if (done.length === 0 || !(e instanceof PlatformError)) throw e;
        throw new PlatformError(
          'rejected',
          `Published to ${done.map(describe).join(', ')}, but not to ${label(t)}: ${e.message}. Not retried, so nothing is posted twice.`,
          { status: e.details.status, platformCode: e.details.platformCode },
        );
      }
    }
    return done;
  }

  return {
    metadata: lemmyMetadata,

    /**
     * Logs in (`POST /api/v3/user/login`), then reads the account from `GET /api/v3/site`
     * (`my_user.local_user_view.person`). Refusals name their field: a wrong password `password`,
     * a 2FA problem `totpToken`, an instance that cannot be reached or is no Lemmy ≥ 0.19
     * `instanceUrl`.
     */
    async connectWithCredentials(input, ctx): Promise<ConnectedAccount> {
      const parsed = LemmyCredentialsSchema.safeParse(input);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        throw new PlatformError('rejected', issue.message, { field: String(issue.path[0] ?? 'instanceUrl') });
      }
      const { username, password, totpToken } = parsed.data;
      const instance = lemmyInstance(parsed.data.instanceUrl);
      let jwt: string;
      try {
        ({ jwt } = await login(ctx, instance, username, password, totpToken));
      } catch (e) {
        if (!(e instanceof PlatformError)) throw e;
        const code = e.details.platformCode;
        if (code === 'incorrect_login') throw new PlatformError('rejected', 'Lemmy refused the login: wrong username or password', { field: 'password' });
        if (code === 'missing_totp_token' || code === 'incorrect_totp_token') throw new PlatformError('rejected', e.message, { field: 'totpToken' });
        if (code && e.kind !== 'rate_limited' && e.kind !== 'transient') throw new PlatformError('rejected', e.message, { field: 'username' });
        if (e.kind === 'rate_limited' || (e.kind === 'transient' && e.details.status !== undefined)) throw e;
        // No answer at all (refused, no such host, blocked address) or an answer that is not Lemmy's.
        const why = e.details.status === undefined ? `could not be reached (${e.message})` : `does not answer like a Lemmy instance (HTTP ${e.details.status} from /api/v3/user/login)`;
        throw new PlatformError('rejected', e.details.field === 'instanceUrl' ? e.message : `${instance} ${why}`, { field: 'instanceUrl' });
      }
      const site = lemmyResult<{ version?: string; my_user?: { local_user_view?: { person?: Person } } }>(await send(ctx, instance, jwt, 'GET', '/api/v3/site'), 'message', ctx.clock.now());
      if (!versionAtLeast(site?.version, MIN_VERSION)) {
        throw new PlatformError('rejected', `${instance} runs Lemmy ${site.version}; Tidings needs Lemmy 0.19 or newer`, { field: 'instanceUrl' });
      }
      const person = site?.my_user?.local_user_view?.person;
      if (!person || typeof person.id !== 'number' || typeof person.name !== 'string') {
        throw new PlatformError('rejected', `${instance} did not accept its own session (no my_user in /api/v3/site)`, { field: 'instanceUrl' });
      }
      const actorHost = person.actor_id ? new URL(person.actor_id).host : new URL(instance).host;
      return {
        internalId: person.actor_id ?? `${instance}/u/${person.name}`,
        name: person.display_name || person.name,
        profile: `${person.name}@${actorHost}`,
        picture: person.avatar ?? null,
        credentials: { instanceUrl: instance, username, password, jwt, personId: person.id, personName: person.name } satisfies LemmyCredentials,
        // Lemmy 0.19 sessions do not expire by time; they end on logout or a password change.
        expiresAt: null,
      };
    },

    /**
     * A new login with the stored username and password. A changed password or a 2FA account
     * (whose code cannot be stored) needs the user: `reconnect_required`.
     */
    async refresh(ctx) {
      const c = creds(ctx);
      try {
        const { jwt } = await login(ctx, c.instanceUrl, c.username, c.password);
        return { credentials: { ...c, jwt } satisfies LemmyCredentials, expiresAt: null };
      } catch (e) {
        if (!(e instanceof PlatformError) || e.kind === 'transient' || e.kind === 'rate_limited') throw e;
        const code = e.details.platformCode;
        const why = code === 'missing_totp_token' ? 'the account has two-factor authentication, so a new session needs a current code' : e.message;
        throw new PlatformError('reconnect_required', `Lemmy would not log in again: ${why}`, { status: e.details.status, platformCode: code });
      }
    },

    validate(post) {
      const issues: ValidationIssue[] = [];
      const list = Array.isArray(post.settings.subreddit) ? (post.settings.subreddit as { value?: { id?: unknown; title?: unknown; url?: unknown } }[]) : [];
      const seen = new Set<string>();
      list.forEach((entry, i) => {
        const v = entry?.value ?? {};
        if (typeof v.title === 'string') {
          const problem = lemmyTitleProblem(v.title);
          if (problem) issues.push({ path: `settings.subreddit.${i}.value.title`, code: 'invalid_post_title', message: problem });
        }
        if (typeof v.id === 'string') {
          if (!/^\d+$/.test(v.id.trim())) issues.push({ path: `settings.subreddit.${i}.value.id`, code: 'invalid_community', message: 'Pick the community from the search: its id is a number' });
          else if (seen.has(v.id.trim())) issues.push({ path: `settings.subreddit.${i}.value.id`, code: 'duplicate_community', message: 'This community is listed twice' });
          seen.add(v.id.trim());
        }
        if (typeof v.url === 'string' && !/^https?:\/\//i.test(v.url)) {
          issues.push({ path: `settings.subreddit.${i}.value.url`, code: 'invalid_url', message: 'Lemmy takes only http(s) links' });
        }
      });
      return issues;
    },

    /**
     * Not idempotent (Lemmy has no idempotency key). The first item becomes one post in each
     * community of `settings.subreddit`, in order: title from the community entry, body in
     * Markdown, the entry's link as `url`. A picture is uploaded once to the instance's pict-rs
     * and becomes the post's `url` (with its alt text), or, when the entry has a link, an image
     * at the top of the body. Thread items become comments under each post, each nested under
     * the previous item's comment. If a later community refuses after earlier ones took the post,
     * the answer is `rejected` naming both, so nothing is ever posted twice by a retry.
     */
    async publish({ item, settings, replyTo }, ctx): Promise<PublishResult> {
      const s = new Session(ctx, creds(ctx));
      const instance = s.c.instanceUrl;
      const markdown = htmlToMarkdown(item.content);
      const pictures: { url: string; alt: string | null }[] = [];
      for (const m of item.media) {
        if (m.type !== 'image') throw new PlatformError('unsupported', 'Lemmy posts take pictures only');
        pictures.push({ url: await uploadPicture(s, ctx, m), alt: m.alt ?? null });
      }
      const embedded = (list: typeof pictures) => list.map((p) => `![${(p.alt ?? '').replace(/[[\]]/g, '')}](${p.url})`).join('\n\n');
      const withPictures = (list: typeof pictures, text: string) => [embedded(list), text].filter((x) => x !== '').join('\n\n');

      if (replyTo) {
        const postIds = idsOf(replyTo.rootId);
        const parents = replyTo.id === replyTo.rootId ? undefined : idsOf(replyTo.id, 'comment:');
        if (parents && parents.length !== postIds.length) throw new PlatformError('rejected', `The previous comment ${replyTo.id} does not match the posts ${replyTo.rootId}`);
        const content = withPictures(pictures, markdown);
        const made = await forEachTarget(
          postIds.map((postId, i) => ({ postId, parentId: parents?.[i] })),
          (t) => `post ${t.postId}`,
          async (t) => {
            const r = await s.call<{ comment_view: { comment: { id: number } } }>('comment', 'POST', '/api/v3/comment', { content, post_id: t.postId, ...(t.parentId ? { parent_id: t.parentId } : {}) });
            const id = r?.comment_view?.comment?.id;
            if (typeof id !== 'number') throw new PlatformError('transient', 'Lemmy accepted the comment without giving its id', { outcomeUnknown: true });
            return id;
          },
          s,
          (id) => `${instance}/comment/${id}`,
        );
        return { status: 'published', id: `comment:${made.join(',')}`, url: `${instance}/comment/${made[0]}` };
      }

      const targets = targetsOf(settings);
      for (const t of targets) {
        const problem = lemmyTitleProblem(t.title);
        if (problem) throw new PlatformError('rejected', `${problem}: "${t.title}"`);
      }
      const nsfw = (settings as { nsfw?: unknown }).nsfw === true;
      const made = await forEachTarget(
        targets,
        (t) => `!${t.name} (${t.communityId})`,
        async (t) => {
          const [cover, ...rest] = pictures;
          // The picture is the post's link unless the community entry has a link of its own.
          const asUrl = cover && !t.url ? cover : undefined;
          const body = withPictures(asUrl ? rest : pictures, markdown);
          const r = await s.call<{ post_view: PostView }>('post', 'POST', '/api/v3/post', {
            name: t.title.trim(),
            community_id: t.communityId,
            ...(body ? { body } : {}),
            ...(t.url ? { url: t.url } : asUrl ? { url: asUrl.url, ...(asUrl.alt ? { alt_text: asUrl.alt.slice(0, 1500) } : {}) } : {}),
            nsfw,
          });
          const id = r?.post_view?.post?.id;
          if (typeof id !== 'number') throw new PlatformError('transient', 'Lemmy accepted the post without giving its id', { outcomeUnknown: true });
          return id;
        },
        s,
        (id) => `${instance}/post/${id}`,
      );
      return { status: 'published', id: made.join(','), url: `${instance}/post/${made[0]}` };
    },

    /**
     * The account's posts (`GET /api/v3/user?username=…&sort=New`), named as publish names them:
     * with `settings`, the posts in those communities with the same title and body joined in
     * their order. With `replyTo`, the account's comments under the thread's posts whose parent
     * is the previous item (its comment, or the post itself).
     */
    async findRecent({ since, limit, replyTo, settings }, ctx) {
      const s = new Session(ctx, creds(ctx));
      const instance = s.c.instanceUrl;
      if (replyTo) {
        const postIds = idsOf(replyTo.rootId);
        const parents = replyTo.id === replyTo.rootId ? undefined : idsOf(replyTo.id, 'comment:');
        const mine = (await recentOfAccount(s, since, 'comments', limit)) as { comment: Comment }[];
        const lists = postIds.map((postId, i) =>
          mine
            .filter(({ comment }) => comment.post_id === postId && parentOf(comment.path) === parents?.[i])
            .map(({ comment }) => ({ id: String(comment.id), url: `${instance}/comment/${comment.id}`, content: comment.content, createdAt: new Date(Date.parse(comment.published)).toISOString() })),
        );
        return combine(lists, 'comment:', (r) => r.content).slice(0, limit);
      }
      const posts = (await recentOfAccount(s, since, 'posts', limit)) as PostView[];
      const recent = (p: Post): Recent & { key: string } => ({
        id: String(p.id),
        url: `${instance}/post/${p.id}`,
        content: p.body ?? p.name,
        createdAt: new Date(Date.parse(p.published)).toISOString(),
        key: `${p.name}\u0000${p.body ?? ''}`,
      });
      let targets: Target[] | undefined;
      try {
        targets = settings && 'subreddit' in settings ? targetsOf(settings) : undefined;
      } catch {
        targets = undefined;
      }
      if (!targets || targets.length < 2) {
        const only = targets?.[0]?.communityId;
        return posts.filter((v) => only === undefined || v.post.community_id === only).map((v) => recent(v.post)).map(({ key: _k, ...r }) => r).slice(0, limit);
      }
      const lists = targets.map((t) => posts.filter((v) => v.post.community_id === t.communityId).map((v) => recent(v.post)));
      return combine(lists, '', (r) => (r as Recent & { key: string }).key)
        .map((r) => ({ id: r.id, url: r.url, content: r.content, createdAt: r.createdAt }))
        .slice(0, limit);
    },

    /** Score, votes and comments of the post (summed over its communities), as of now. */
    async postAnalytics(postId, _days, ctx) {
      if (postId.startsWith('comment:')) throw new PlatformError('unsupported', 'Lemmy figures are kept for posts, not for thread comments');
      const s = new Session(ctx, creds(ctx));
      const total = { score: 0, upvotes: 0, downvotes: 0, comments: 0 };
      for (const id of idsOf(postId)) {
        const counts = (await s.call<{ post_view: PostView }>('message', 'GET', `/api/v3/post?id=${id}`)).post_view?.counts ?? {};
        total.score += counts.score ?? 0;
        total.upvotes += counts.upvotes ?? 0;
        total.downvotes += counts.downvotes ?? 0;
        total.comments += counts.comments ?? 0;
      }
      const now = ctx.clock.now();
      return [series('Score', total.score, now), series('Upvotes', total.upvotes, now), series('Downvotes', total.downvotes, now), series('Comments', total.comments, now)];
    },

    /**
     * `subreddits` {word}: communities known to the instance (local and federated) whose name or
     * title matches, most subscribed first; an empty word lists the top communities.
     */
    async runTool(methodName, data, ctx) {
      if (methodName !== 'subreddits') throw new PlatformError('unsupported', `Lemmy has no tool ${methodName}`);
      const word = typeof (data as { word?: unknown })?.word === 'string' ? (data as { word: string }).word.trim() : '';
      const s = new Session(ctx, creds(ctx));
      const found = word
        ? (await s.call<{ communities?: CommunityView[] }>('search', 'GET', `/api/v3/search?${new URLSearchParams({ q: word, type_: 'Communities', sort: 'TopAll', listing_type: 'All', limit: '20' }).toString()}`)).communities
        : (await s.call<{ communities?: CommunityView[] }>('message', 'GET', `/api/v3/community/list?${new URLSearchParams({ type_: 'All', sort: 'TopAll', limit: '20' }).toString()}`)).communities;
      return (found ?? []).map(({ community: c, counts }) => {
        const host = c.actor_id ? new URL(c.actor_id).host : new URL(s.c.instanceUrl).host;
        return { id: String(c.id), name: `${c.name}@${host}`, title: c.title, subreddit: c.name, nsfw: c.nsfw ?? false, subscribers: counts?.subscribers ?? 0 };
      });
    },
  };
}


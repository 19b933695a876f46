import { crc32, deflateSync } from 'node:zlib';
import { VERSION } from '../../version.js';
import { decodeHtmlEntities } from '../common/html-markup.js';
import { htmlToText } from '../common/html.js';
import { buildAuthorizeUrl, exchangeCode, refreshTokens, type OAuthApp } from '../common/oauth2.js';
import { mediaFileName } from '../common/media.js';
import { PlatformError, type ConnectedAccount, type OperationContext, type PlatformAdapter, type PostDraft, type PublishItem, type PublishResult, type ValidationIssue } from '../platform.js';
import { creds, postUrl, REDDIT_WWW, redditClient, type CommentChild, type RedditCredentials } from './client.js';
import { redditMetadata } from './metadata.js';

const OAUTH = redditMetadata.oauth!;
const TITLE_MAX = 300;
/** The scopes publishing cannot do without (the user may untick others on the consent page). */
const NEEDED_SCOPES = ['identity', 'submit'];
/** How long an image/video post may take to show in the user's listing before we give up. */
const PENDING_GIVE_UP_SECONDS = 60 * 60;
/** Clock skew allowed between our clock and Reddit's `created_utc` when matching a pending post. */
const SKEW_SECONDS = 120;

export interface RedditAdapterConfig {
  /** the deployment's Reddit "web app" (client id and secret); absent: Reddit cannot be connected */
  app?: OAuthApp;
  /** Reddit wants a unique, descriptive User-Agent (`<platform>:<app id>:<version> (by /u/<dev>)`) */
  userAgent?: string;
}

/** A post kind of `POST /api/submit`. */
type Kind = 'self' | 'link' | 'image' | 'video' | 'videogif';

/** One submission to make: a subreddit entry of the settings, resolved against the post item. */
export interface RedditTarget {
  sr: string;
  kind: Kind;
  title: string;
  url?: string;
  flair?: { id: string; name?: string };
  nsfw: boolean;
  spoiler: boolean;
}

/** What `checkPublish` needs to find an image/video post Reddit accepted without an id. */
interface PendingToken {
  v: 1;
  user: string;
  sr: string;
  title: string;
  /** unix seconds just before the submit */
  since: number;
}

/** Pages of the user's comments read at most when looking for a reply (Reddit lists no more than 1,000 items). */
const COMMENT_PAGES = 10;
/** Comments per page: Reddit's maximum. */
const COMMENT_PAGE_SIZE = 100;

type Ctx = Pick<OperationContext, 'http' | 'clock'>;

/**
 * A subreddit as the submit endpoint wants it: `/r/typescript/`, `r/typescript`,
 * `https://www.reddit.com/r/typescript` → `typescript`; a profile (`u/name`, `/user/name`) →
 * its profile subreddit `u_name`.
 */
export function normalizeSubreddit(value: string): string {
  let s = value.trim().replace(/^https?:\/\/(?:www\.|old\.|new\.)?reddit\.com/i, '');
  s = s.replace(/^\/+/, '');
  const profile = /^(?:u|user)\/([^/?#]+)/i.exec(s);
  if (profile) return `u_${profile[1]}`;
  s = s.replace(/^r\//i, '');
  return s.split(/[/?#]/)[0] ?? '';
}

/**
 * Stored HTML → Reddit markdown: bold, italics, links and lists keep their meaning, paragraphs
 * are separated by a blank line and single line breaks become hard breaks (markdown would join
 * them into one line otherwise). Markdown the user typed is left as it is.
 */
export function toRedditMarkdown(html: string): string {
  const marked = html
    .replace(/<(strong|b)(\s[^>]*)?>|<\/(strong|b)>/gi, '**')
    .replace(/<(em|i)(\s[^>]*)?>|<\/(em|i)>/gi, '*')
    .replace(/<a\s[^>]*?href\s*=\s*(?:"([^"]*)"|'([^']*)')[^>]*>([\s\S]*?)<\/a>/gi, (_m, dq: string | undefined, sq: string | undefined, inner: string) => `[${inner}](${dq ?? sq ?? ''})`)
    .replace(/<li(\s[^>]*)?>/gi, '- ')
    .replace(/<\/li>\s*/gi, '<br>')
    .replace(/<\/(p|div|ul|ol|h[1-6]|blockquote)>\s*/gi, '<br><br>')
    .replace(/<(p|div|ul|ol|h[1-6]|blockquote)(\s[^>]*)?>/gi, '');
  return htmlToText(marked).replace(/([^\n])\n(?=[^\n])(?!- )/g, '$1  \n');
}

/** A title from the text: its first line, cut to Reddit's 300 characters. */
export function titleFromContent(html: string): string {
  const first = htmlToText(html).split('\n').find((l) => l.trim() !== '')?.trim() ?? '';
  return first.length <= TITLE_MAX ? first : `${first.slice(0, TITLE_MAX - 1).trimEnd()}…`;
}

function kindOf(type: string, item: PublishItem): Kind | undefined {
  switch (type) {
    case 'self':
    case 'link':
    case 'image':
    case 'video':
    case 'videogif':
      return type;
    // The reference's "media": an image or a video post, after the attached item.
    case 'media':
      return item.media[0]?.type === 'video' ? 'video' : 'image';
    default:
      return undefined;
  }
}

interface SubredditEntry {
  subreddit?: unknown;
  title?: unknown;
  type?: unknown;
  url?: unknown;
  flair?: { id?: unknown; name?: unknown } | null;
  nsfw?: unknown;
  spoiler?: unknown;
}

function entries(settings: Record<string, unknown>): SubredditEntry[] {
  const list = settings.subreddit;
  if (!Array.isArray(list)) return [];
  return list.map((e): SubredditEntry => (e as { value?: SubredditEntry } | null)?.value ?? {});
}

/**
 * The submissions a post makes: one per `settings.subreddit` entry. Without any entry (the post
 * was stored without Reddit settings) it goes to the user's own profile (`u_{name}`, a real
 * subreddit every account has) with the first line of the text as its title: a text post, or an
 * image/video post when the item carries media.
 */
export function redditTargets(settings: Record<string, unknown>, item: PublishItem, username: string): RedditTarget[] {
  const list = entries(settings);
  if (list.length === 0) {
    const title = titleFromContent(item.content);
    if (title === '') throw new PlatformError('rejected', 'A Reddit post needs a title: without subreddit settings the first line of the text is used, and it is empty');
    const media = item.media[0];
    return [{ sr: `u_${username}`, kind: media ? (media.type === 'video' ? 'video' : 'image') : 'self', title, nsfw: false, spoiler: false }];
  }
  return list.map((v, i) => {
    const sr = normalizeSubreddit(typeof v.subreddit === 'string' ? v.subreddit : '');
    const kind = kindOf(typeof v.type === 'string' ? v.type : '', item);
    const title = typeof v.title === 'string' ? v.title.trim() : '';
    if (!sr) throw new PlatformError('rejected', `Reddit subreddit #${i + 1} has no name`);
    if (!kind) throw new PlatformError('rejected', `Reddit post type "${String(v.type)}" of r/${sr} is not one of self, link, image, video`);
    if (!title) throw new PlatformError('rejected', `The Reddit post to r/${sr} has no title`);
    const flairId = typeof v.flair?.id === 'string' && v.flair.id !== '' ? v.flair.id : undefined;
    return {
      sr,
      kind,
      title,
      ...(kind === 'link' && typeof v.url === 'string' ? { url: v.url } : {}),
      ...(flairId ? { flair: { id: flairId, ...(typeof v.flair?.name === 'string' ? { name: v.flair.name } : {}) } } : {}),
      nsfw: v.nsfw === true,
      spoiler: v.spoiler === true,
    };
  });
}

/** The fullname (`t3_…` post, `t1_…` comment) to reply to. */
function parentFullname(replyTo: { id: string; rootId: string }): string {
  if (/^t[13]_/.test(replyTo.id)) return replyTo.id;
  return replyTo.id === replyTo.rootId ? `t3_${replyTo.id}` : `t1_${replyTo.id}`;
}

/** The submission a thread hangs from, as a fullname: the root is always a submission (`t3_…`), bare or not. */
function submissionFullname(rootId: string): string {
  return rootId.startsWith('t3_') ? rootId : `t3_${rootId}`;
}

function encodeToken(t: PendingToken): string {
  return Buffer.from(JSON.stringify(t)).toString('base64url');
}

function decodeToken(token: string): PendingToken {
  try {
    const t = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as PendingToken;
    if (t.v === 1 && typeof t.user === 'string' && typeof t.sr === 'string' && typeof t.title === 'string' && typeof t.since === 'number') return t;
  } catch {
    // fall through
  }
  throw new PlatformError('rejected', 'Not a Reddit publish token');
}

const sameTitle = (a: string, b: string) => a.replace(/\s+/g, ' ').trim() === b.replace(/\s+/g, ' ').trim();

let poster: Buffer | undefined;
/**
 * Reddit wants a poster image with every video post and we have none: like PRAW, send a plain
 * placeholder (a 160×90 dark PNG, built once).
 */
function placeholderPoster(): Buffer {
  if (poster) return poster;
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const [w, h] = [160, 90];
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(w * 3, 0x1a)]);
  poster = Buffer.concat([
    Buffer.from('89504e470d0a1a0a', 'hex'),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.concat(Array.from({ length: h }, () => row)))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
  return poster;
}

/**
 * Creates the Reddit adapter: OAuth 2 with a permanent refresh token, one submission per
 * configured subreddit, comments for thread items, image/video uploads through Reddit's media
 * lease, and the subreddit tools.
 */
export function createRedditAdapter(config: RedditAdapterConfig = {}): PlatformAdapter {
  const userAgent = config.userAgent ?? `server:tidings:v${VERSION} (self-hosted social post scheduler)`;
  const app = () => {
    if (!config.app?.clientId || !config.app.clientSecret) throw new PlatformError('unsupported', 'Reddit is not configured');
    return config.app;
  };
  const reddit = redditClient(userAgent);

  /**
   * The user's comments on the submission `link` made since `since`, newest first, at most `limit`.
   * Read from the user's own comment listing (newest first) rather than the submission's comment
   * tree, which nests replies at any depth and cuts long threads into "more" stubs; paging stops
   * once the listing reaches comments older than `since`.
   */
  async function commentsOn(ctx: Ctx, c: RedditCredentials, link: string, since: Date, limit: number): Promise<CommentChild['data'][]> {
    const sinceSeconds = Math.floor(since.getTime() / 1000);
    const found: CommentChild['data'][] = [];
    let after: string | null = null;
    for (let page = 0; page < COMMENT_PAGES && found.length < limit; page++) {
      const listing = await reddit.comments(ctx, c, COMMENT_PAGE_SIZE, after);
      const comments = (listing?.data?.children ?? []).filter((ch) => ch.kind === 't1').map((ch) => ch.data);
      found.push(...comments.filter((cm) => cm.link_id === link && cm.created_utc >= sinceSeconds));
      after = listing?.data?.after ?? null;
      const oldest = comments.at(-1);
      if (!after || !oldest || oldest.created_utc < sinceSeconds) break;
    }
    return found.slice(0, limit);
  }

  /** Finds a post Reddit accepted without an id: same subreddit and title, made after `since`. */
  async function findPending(ctx: Ctx, c: RedditCredentials, t: PendingToken): Promise<PublishResult> {
    const matches = (await reddit.submitted(ctx, c, 25)).filter(
      (p) => p.subreddit.toLowerCase() === t.sr.toLowerCase() && sameTitle(p.title, t.title) && p.created_utc >= t.since - SKEW_SECONDS,
    );
    // The oldest match is ours: a later one would be a post made after this one.
    const post = matches.sort((a, b) => a.created_utc - b.created_utc)[0];
    if (post) return { status: 'published', id: post.name || `t3_${post.id}`, url: `${REDDIT_WWW}${post.permalink}` };
    if (ctx.clock.now() / 1000 - t.since > PENDING_GIVE_UP_SECONDS) {
      throw new PlatformError('rejected', `Reddit accepted the ${t.sr} post "${t.title}" but it never appeared in u/${t.user}'s submissions (removed by a filter?)`);
    }
    return { status: 'pending', token: encodeToken(t) };
  }

  async function submit(ctx: OperationContext, c: RedditCredentials, t: RedditTarget, item: PublishItem): Promise<PublishResult> {
    const form: Record<string, string> = { api_type: 'json', sr: t.sr, kind: t.kind, title: t.title, resubmit: 'true', sendreplies: 'true' };
    if (t.kind === 'self') form.text = toRedditMarkdown(item.content);
    if (t.kind === 'link') {
      if (!t.url) throw new PlatformError('rejected', `The Reddit link post to r/${t.sr} has no URL`);
      form.url = t.url;
    }
    if (t.kind === 'image' || t.kind === 'video' || t.kind === 'videogif') {
      const want = t.kind === 'image' ? 'image' : 'video';
      const media = item.media.find((m) => m.type === want);
      if (!media) throw new PlatformError('rejected', `The Reddit ${t.kind} post to r/${t.sr} needs one ${want}`);
      const name = mediaFileName(media);
      form.url = await reddit.upload(ctx, c, await ctx.openMedia(media), name, media.mimeType);
      if (want === 'video') form.video_poster_url = await reddit.upload(ctx, c, new Blob([placeholderPoster()], { type: 'image/png' }), 'poster.png', 'image/png');
    }
    if (t.flair) {
      form.flair_id = t.flair.id;
      if (t.flair.name) form.flair_text = t.flair.name;
    }
    if (t.nsfw) form.nsfw = 'true';
    if (t.spoiler) form.spoiler = 'true';
    const since = Math.floor(ctx.clock.now() / 1000);
    const data = await reddit.submit(ctx, c, form);
    if (data.id || data.name) {
      const fullname = data.name ?? `t3_${data.id}`;
      return { status: 'published', id: fullname, url: postUrl(t.sr, fullname, data.url) };
    }
    // Image and video posts come back without an id: the post is listed once Reddit has processed the media.
    const pending: PendingToken = { v: 1, user: c.username, sr: t.sr, title: t.title, since };
    try {
      return await findPending(ctx, c, pending);
    } catch (e) {
      // The post is made: a failed look must not turn into an error the publisher would retry.
      ctx.logger.warn({ err: e instanceof Error ? e.message : String(e) }, 'Reddit post made; looking it up failed, checking later');
      return { status: 'pending', token: encodeToken(pending) };
    }
  }

  return {
    metadata: redditMetadata,

    async beginConnect({ state, redirectUri }) {
      const { clientId } = app();
      // `duration=permanent` is what makes Reddit issue a refresh token.
      return { url: buildAuthorizeUrl(OAUTH, { clientId, redirectUri, state, extra: { duration: 'permanent' } }) };
    },

    async completeConnect({ code, redirectUri }, ctx): Promise<ConnectedAccount> {
      const tokens = await exchangeCode(reddit.http(ctx), { tokenUrl: OAUTH.tokenUrl, app: app(), code, redirectUri, clientAuth: 'basic', now: ctx.clock.now() });
      const granted = (tokens.scope ?? '').split(/[\s,]+/);
      const missing = NEEDED_SCOPES.filter((s) => !granted.includes(s) && !granted.includes('*'));
      if (tokens.scope !== null && missing.length > 0) throw new PlatformError('rejected', `Reddit did not grant the ${missing.join(', ')} permission: connect again and allow it`);
      const user = await reddit.me(ctx, tokens.accessToken);
      const credentials: RedditCredentials = { accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, userId: user.id, username: user.name };
      return {
        internalId: user.id,
        name: user.name,
        profile: `u/${user.name}`,
        picture: user.icon_img ? decodeHtmlEntities(user.icon_img) : null,
        credentials: { ...credentials },
        expiresAt: tokens.expiresAt,
      };
    },

    async refresh(ctx) {
      const c = creds(ctx);
      if (!c.refreshToken) throw new PlatformError('reconnect_required', 'This Reddit connection has no refresh token: connect again');
      const tokens = await refreshTokens(reddit.http(ctx), { tokenUrl: OAUTH.tokenUrl, app: app(), refreshToken: c.refreshToken, clientAuth: 'basic', now: ctx.clock.now() });
      const credentials: RedditCredentials = { ...c, accessToken: tokens.accessToken, refreshToken: tokens.refreshToken };
      return { credentials: { ...credentials }, expiresAt: tokens.expiresAt };
    },

    validate(post: PostDraft): ValidationIssue[] {
      const issues: ValidationIssue[] = [];
      const first = post.items[0];
      const media = first?.media ?? [];
      const list = entries(post.settings);
      let usesMedia = false;
      list.forEach((v, i) => {
        const at = `settings.subreddit.${i}.value`;
        const type = typeof v.type === 'string' ? v.type : '';
        if (!['self', 'link', 'image', 'video', 'videogif', 'media'].includes(type)) {
          issues.push({ path: `${at}.type`, code: 'invalid_type', message: 'The post type must be self, link, image, video or media' });
          return;
        }
        if (typeof v.title === 'string' && v.title.trim().length > TITLE_MAX) {
          issues.push({ path: `${at}.title`, code: 'too_long', message: `A Reddit title has at most ${TITLE_MAX} characters` });
        }
        if (type === 'self' || type === 'link') return;
        usesMedia = true;
        const want = type === 'image' ? ['image'] : type === 'media' ? ['image', 'video'] : ['video'];
        if (media.length !== 1 || !want.includes(media[0]!.type)) {
          const label = type === 'media' ? 'image or video' : want[0]!;
          issues.push({ path: 'value.0.image', code: 'media_count', message: `A Reddit ${type} post (r/${normalizeSubreddit(typeof v.subreddit === 'string' ? v.subreddit : '')}) needs exactly one ${label}` });
        }
      });
      if (list.length > 0 && !usesMedia && media.length > 0) {
        issues.push({ path: 'value.0.image', code: 'media_unused', message: 'Reddit text and link posts carry no media: choose the image or video type for a subreddit, or remove the media' });
      }
      if (list.length === 0 && first && titleFromContent(first.content) === '') {
        issues.push({ path: 'value.0.content', code: 'required', message: 'Without subreddits the post goes to your profile and its first line is the title: it cannot be empty' });
      }
      return issues;
    },

    /**
     * NOT idempotent: Reddit has no idempotency key and `resubmit=true` lets the same link be
     * posted again, so a retried call posts twice. Thread items (`replyTo`) become comments.
     * Otherwise one submission per `settings.subreddit` entry, in order; the result is the first
     * one's (fullname `t3_…`). Once the first is made, a failure of a later subreddit is logged and
     * not thrown, so the publisher never re-sends (and duplicates) the first. With no subreddit
     * settings the post goes to the user's profile (`u_{name}`), titled by its first line.
     * Image/video posts that Reddit answers without an id come back `pending` (see `checkPublish`).
     */
    async publish({ item, settings, replyTo }, ctx): Promise<PublishResult> {
      const c = creds(ctx);
      if (replyTo) {
        if (item.media.length > 0) ctx.logger.warn({ media: item.media.length }, 'Reddit comments carry no media: sending the text only');
        const data = await reddit.comment(ctx, c, parentFullname(replyTo), toRedditMarkdown(item.content));
        const thing = data.things?.[0]?.data;
        if (!thing?.id) throw new PlatformError('transient', 'Reddit answered the comment without its id', { outcomeUnknown: true });
        return { status: 'published', id: thing.name ?? `t1_${thing.id}`, url: thing.permalink ? `${REDDIT_WWW}${thing.permalink}` : `${REDDIT_WWW}/comments/${parentFullname(replyTo).slice(3)}/_/${thing.id}/` };
      }
      const targets = redditTargets(settings, item, c.username);
      let first: PublishResult | undefined;
      for (const t of targets) {
        try {
          const r = await submit(ctx, c, t, item);
          first ??= r;
        } catch (e) {
          if (!first) throw e;
          ctx.logger.warn({ subreddit: t.sr, err: e instanceof Error ? e.message : String(e) }, 'Reddit refused a further subreddit of the post; the first one is out, so this is not retried');
        }
      }
      return first!;
    },

    async checkPublish(token, ctx) {
      const t = decodeToken(token);
      return findPending(ctx, creds(ctx), t);
    },

    async runTool(methodName, data, ctx) {
      const c = creds(ctx);
      const tool = redditMetadata.tools.find((x) => x.methodName === methodName);
      if (!tool) throw new PlatformError('unsupported', `Reddit has no tool "${methodName}"`);
      const parsed = tool.dataSchema.safeParse(data);
      if (!parsed.success) throw new PlatformError('rejected', `Invalid data for ${methodName}: ${parsed.error.issues.map((i) => i.message).join('; ')}`);
      if (methodName === 'subreddits') {
        const { word } = parsed.data as { word: string };
        const listing = await reddit.searchSubreddits(ctx, c, word);
        return (listing?.data?.children ?? [])
          .filter((ch) => ch.kind === 't5' && ch.data.subreddit_type === 'public')
          .map(({ data: s }) => ({ title: s.title, name: `/r/${s.display_name}`, id: s.id }));
      }
      const sr = normalizeSubreddit((parsed.data as { subreddit: string }).subreddit);
      if (!sr) throw new PlatformError('rejected', 'Name a subreddit');
      const about = await reddit.subredditAbout(ctx, c, sr);
      if (about?.kind !== 't5' || !about.data) throw new PlatformError('rejected', `Reddit has no subreddit r/${sr}`);
      // The post requirements and the flairs are extras: a subreddit may hide them from us.
      const { requirements, flairs } = await reddit.subredditRules(ctx, c, sr);
      const type = about.data.submission_type ?? 'any';
      const allowImages = about.data.allow_images === true;
      return {
        subreddit: `/r/${about.data.display_name}`,
        allow: [...(type !== 'link' ? ['self'] : []), ...(type !== 'self' ? ['link'] : []), ...(allowImages || about.data.allow_videos ? ['media'] : [])],
        allow_images: allowImages,
        is_flair_required: requirements.is_flair_required === true,
        flairs: Array.isArray(flairs) ? flairs.map((f) => ({ id: f.id, name: f.text })) : [],
      };
    },

    /**
     * The user's recent submissions; with `replyTo`, instead the user's comments anywhere under
     * the thread's submission (a thread item is a comment, which the submissions listing leaves
     * out), with the id and URL `publish` gives a comment.
     */
    async findRecent({ since, limit, replyTo }, ctx) {
      const c = creds(ctx);
      if (replyTo) {
        const link = submissionFullname(replyTo.rootId);
        return (await commentsOn(ctx, c, link, since, limit)).map((cm) => ({
          id: cm.name || `t1_${cm.id}`,
          url: cm.permalink ? `${REDDIT_WWW}${cm.permalink}` : `${REDDIT_WWW}/comments/${link.slice(3)}/_/${cm.id}/`,
          content: cm.body,
          createdAt: new Date(cm.created_utc * 1000).toISOString(),
        }));
      }
      const posts = await reddit.submitted(ctx, c, Math.min(100, Math.max(1, limit)));
      return posts
        .filter((p) => p.created_utc * 1000 >= since.getTime())
        .slice(0, limit)
        .map((p) => ({
          id: p.name || `t3_${p.id}`,
          url: `${REDDIT_WWW}${p.permalink}`,
          content: p.selftext ? `${p.title}\n\n${p.selftext}` : p.title,
          createdAt: new Date(p.created_utc * 1000).toISOString(),
        }));
    },
  };
}

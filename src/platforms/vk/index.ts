import { htmlToText } from '../common/html.js';
import { mediaFileName } from '../common/media.js';
import { buildAuthorizeUrl, exchangeCode, type OAuthApp } from '../common/oauth2.js';
import {
  PlatformError,
  type AnalyticsSeries,
  type ConnectedAccount,
  type OperationContext,
  type PlatformAdapter,
  type PublishMedia,
  type ValidationIssue,
} from '../platform.js';
import {
  authorOf,
  commentUrl,
  jsonOf,
  parseItemId,
  postUrl,
  refreshVkToken,
  targetOf,
  tokenState,
  vkApi,
  vkCreds,
  vkUserInfo,
  type VkApi,
  type VkCredentials,
  type VkTarget,
} from './client.js';
import { uploadError } from './errors.js';
import { vkMetadata } from './metadata.js';

export { VK_API, VK_API_VERSION, VK_ID, VK_WWW, postUrl, type VkCredentials } from './client.js';

const OAUTH = vkMetadata.oauth!;
/** Uploads carry up to 2 GB: the attempt's own timeout bounds them. */
const UPLOAD_TIMEOUT_MS = 60 * 60_000;
const MAX_ATTACHMENTS = 10;

function requireApp(app: OAuthApp | undefined): OAuthApp {
  if (!app?.clientId) throw new PlatformError('unsupported', 'VK is not configured');
  return app;
}

interface WallItem {
  id: number;
  owner_id?: number;
  from_id?: number;
  date?: number;
  text?: string;
  views?: { count?: number };
  likes?: { count?: number };
  reposts?: { count?: number };
  comments?: { count?: number };
}

interface CommentItem {
  id: number;
  from_id?: number;
  date?: number;
  text?: string;
  parents_stack?: number[];
  thread?: { count?: number; items?: CommentItem[] };
}

/** The credentials to store from a token answer. */
function credentialsOf(
  t: { access_token: string; refresh_token?: string | null; expires_in?: number | string },
  userId: string,
  deviceId: string | null,
  now: number,
  previousRefresh: string | null = null,
): { credentials: VkCredentials; expiresAt: Date | null } {
  const expiresIn = Number(t.expires_in);
  const expiresAt = Number.isFinite(expiresIn) && expiresIn > 0 ? new Date(now + expiresIn * 1000) : null;
  return {
    credentials: {
      accessToken: t.access_token,
      refreshToken: typeof t.refresh_token === 'string' && t.refresh_token !== '' ? t.refresh_token : previousRefresh,
      expiresAt: expiresAt?.toISOString() ?? null,
      deviceId,
      userId,
    },
    expiresAt,
  };
}

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * Creates the VK adapter: VK ID (OAuth 2.1, PKCE) with 1-hour access tokens and single-use
 * refresh tokens bound to the authorisation's `device_id`; wall posts on the user's wall or a
 * community's (`settings.community`, posted as the community unless `from_group: false`) with
 * plain text and up to 10 photos/videos, uploaded through VK's upload servers (get the server →
 * POST the file → save); thread items as comments (`reply_to_comment` for a reply to a comment);
 * the `communities` tool; views/likes/reposts/comments of a post.
 */
export function createVkAdapter(config: { app?: OAuthApp } = {}): PlatformAdapter {
  /** photos.getWallUploadServer → POST `photo` → photos.saveWallPhoto: `photo{owner}_{id}`. */
  async function uploadPhoto(ctx: OperationContext, api: VkApi, target: VkTarget, m: PublishMedia): Promise<string> {
    const group = target.groupId ? { group_id: target.groupId } : {};
    const server = await api.call<{ upload_url?: string }>('photos.getWallUploadServer', group);
    if (!server?.upload_url) throw new PlatformError('transient', 'VK gave no upload server for the picture');
    const blob = await ctx.openMedia(m);
    const body = new FormData();
    body.append('photo', blob, mediaFileName(m));
    const res = jsonOf(await ctx.http.request({ method: 'POST', url: server.upload_url, body, timeoutMs: UPLOAD_TIMEOUT_MS }));
    const err = uploadError(res, 'photo');
    if (err) throw err;
    const up = res.body as { server: number | string; photo: string; hash: string };
    const saved = await api.call<{ id: number; owner_id: number }[]>('photos.saveWallPhoto', {
      ...(target.groupId ? { group_id: target.groupId } : { user_id: target.ownerId }),
      server: up.server,
      photo: up.photo,
      hash: up.hash,
      ...(m.alt ? { caption: m.alt.slice(0, 2048) } : {}),
    });
    const p = saved?.[0];
    if (!p) throw new PlatformError('transient', 'VK saved no photo');
    return `photo${p.owner_id}_${p.id}`;
  }

  /** video.save → POST `video_file` to its upload_url: `video{owner}_{id}`. */
  async function uploadVideo(ctx: OperationContext, api: VkApi, target: VkTarget, m: PublishMedia, description: string): Promise<string> {
    const name = mediaFileName(m);
    const saved = await api.call<{ upload_url?: string; video_id?: number; owner_id?: number }>('video.save', {
      name,
      description: description.slice(0, 5000),
      wallpost: 0,
      ...(target.groupId ? { group_id: target.groupId } : {}),
    });
    if (!saved?.upload_url || saved.video_id === undefined) throw new PlatformError('transient', 'VK gave no upload address for the video');
    const blob = await ctx.openMedia(m);
    const body = new FormData();
    body.append('video_file', blob, name);
    const res = jsonOf(await ctx.http.request({ method: 'POST', url: saved.upload_url, body, timeoutMs: UPLOAD_TIMEOUT_MS }));
    const err = uploadError(res, 'video');
    if (err) throw err;
    const up = res.body as { video_id?: number; owner_id?: number };
    return `video${up.owner_id ?? saved.owner_id ?? target.ownerId}_${up.video_id ?? saved.video_id}`;
  }

  async function attachmentsOf(ctx: OperationContext, api: VkApi, target: VkTarget, media: PublishMedia[], text: string): Promise<string | undefined> {
    if (media.length > MAX_ATTACHMENTS) throw new PlatformError('rejected', `A VK post takes at most ${MAX_ATTACHMENTS} attachments; this one has ${media.length}`);
    const out: string[] = [];
    for (const m of media) out.push(m.type === 'video' ? await uploadVideo(ctx, api, target, m, text) : await uploadPhoto(ctx, api, target, m));
    return out.length > 0 ? out.join(',') : undefined;
  }

  return {
    metadata: vkMetadata,

    async beginConnect({ state, redirectUri, codeChallenge }) {
      const app = requireApp(config.app);
      if (!codeChallenge) throw new PlatformError('rejected', 'VK ID needs PKCE: no code challenge was given');
      return { url: buildAuthorizeUrl(OAUTH, { clientId: app.clientId, redirectUri, state, codeChallenge }) };
    },

    /**
     * Exchanges the code (with the PKCE verifier, and VK ID's `device_id` from the callback's
     * parameters when it carried one: see docs/platforms.md; without it VK ID refuses the exchange
     * saying `device_id` is required) and reads the profile from `oauth2/user_info`.
     */
    async completeConnect(input: { code: string; redirectUri: string; codeVerifier?: string; callbackParams?: Record<string, string> }, ctx): Promise<ConnectedAccount> {
      const app = requireApp(config.app);
      if (!input.codeVerifier) throw new PlatformError('rejected', 'VK ID needs the PKCE code verifier');
      const deviceId = input.callbackParams?.device_id || null;
      const now = ctx.clock.now();
      const tokens = await exchangeCode(ctx.http, {
        tokenUrl: OAUTH.tokenUrl,
        app,
        code: input.code,
        redirectUri: input.redirectUri,
        codeVerifier: input.codeVerifier,
        now,
        extra: { ...(deviceId ? { device_id: deviceId } : {}), state: tokenState() },
      });
      const user = await vkUserInfo(ctx, { clientId: app.clientId, accessToken: tokens.accessToken });
      const userId = String(user.user_id);
      const { credentials, expiresAt } = credentialsOf(
        { access_token: tokens.accessToken, refresh_token: tokens.refreshToken, expires_in: tokens.raw.expires_in as number | undefined },
        userId,
        deviceId,
        now,
      );
      const name = [user.first_name, user.last_name].filter((s) => s && s.trim() !== '').join(' ') || `id${userId}`;
      return { internalId: userId, name, profile: `id${userId}`, picture: user.avatar ?? null, credentials: { ...credentials }, expiresAt };
    },

    /** Renews the 1-hour token with the single-use refresh token (and the device id): store the new pair before using it. */
    async refresh(ctx) {
      const app = requireApp(config.app);
      const c = vkCreds(ctx);
      if (!c.refreshToken) throw new PlatformError('reconnect_required', 'No VK refresh token is stored: reconnect the channel');
      const now = ctx.clock.now();
      const t = await refreshVkToken(ctx, { clientId: app.clientId, refreshToken: c.refreshToken, deviceId: c.deviceId });
      const { credentials, expiresAt } = credentialsOf(t, c.userId, c.deviceId, now, c.refreshToken);
      return { credentials: { ...credentials }, expiresAt };
    },

    validate(post) {
      const issues: ValidationIssue[] = [];
      post.items.forEach((item, i) => {
        if (htmlToText(item.content) === '' && item.media.length === 0) {
          issues.push({ path: `value.${i}.content`, code: 'empty', message: 'A VK post or comment needs text or an attachment' });
        }
      });
      return issues;
    },

    /**
     * A wall post (`wall.post`), or for a thread item a comment (`wall.createComment`) on the first
     * item's post, replying to the previous comment when the item follows one. Media are uploaded
     * first, then attached. NOT idempotent: reconciled with `findRecent`.
     */
    async publish({ item, settings, replyTo }, ctx) {
      const c = vkCreds(ctx);
      const api = vkApi(ctx, c);
      const text = htmlToText(item.content);
      if (replyTo) {
        const root = parseItemId(replyTo.rootId);
        const parent = parseItemId(replyTo.id);
        // Comments go on the root post's wall; as the community when the post was.
        const target: VkTarget = root.ownerId.startsWith('-')
          ? { ownerId: root.ownerId, groupId: root.ownerId.slice(1), fromGroup: settings.from_group !== false && typeof settings.community === 'string' && settings.community !== '' }
          : { ownerId: root.ownerId, fromGroup: false };
        const attachments = await attachmentsOf(ctx, api, target, item.media, text);
        const r = await api.call<{ comment_id?: number }>('wall.createComment', {
          owner_id: root.ownerId,
          post_id: root.postId,
          message: text || undefined,
          attachments,
          ...(parent.commentId ? { reply_to_comment: parent.commentId } : {}),
          ...(target.fromGroup && target.groupId ? { from_group: target.groupId } : {}),
        });
        if (r?.comment_id === undefined) throw new PlatformError('transient', 'VK made the comment without naming it', { outcomeUnknown: true });
        return {
          status: 'published',
          id: `${root.ownerId}_${root.postId}_${r.comment_id}`,
          url: commentUrl(root.ownerId, root.postId, r.comment_id, parent.commentId),
        };
      }
      const target = targetOf(settings, c.userId);
      const attachments = await attachmentsOf(ctx, api, target, item.media, text);
      const r = await api.call<{ post_id?: number }>('wall.post', {
        owner_id: target.ownerId,
        ...(target.fromGroup ? { from_group: 1 } : {}),
        message: text || undefined,
        attachments,
      });
      if (r?.post_id === undefined) throw new PlatformError('transient', 'VK made the post without naming it', { outcomeUnknown: true });
      return { status: 'published', id: `${target.ownerId}_${r.post_id}`, url: postUrl(target.ownerId, r.post_id) };
    },

    async runTool(methodName, _data, ctx) {
      if (methodName !== 'communities') throw new PlatformError('unsupported', `VK has no tool "${methodName}"`);
      const c = vkCreds(ctx);
      const r = await vkApi(ctx, c).call<{ items?: { id: number; name?: string; screen_name?: string; photo_100?: string }[] }>('groups.get', {
        user_id: c.userId,
        filter: 'admin,editor',
        extended: 1,
        fields: 'photo_100',
        count: 1000,
      });
      return (r?.items ?? []).map((g) => ({ id: String(g.id), name: g.name ?? `club${g.id}`, screen_name: g.screen_name ?? null, picture: g.photo_100 ?? null }));
    },

    /** A wall post's views, likes, reposts and comments as of now (VK keeps no daily history for a post). */
    async postAnalytics(postId, _days, ctx) {
      const id = parseItemId(postId);
      if (id.commentId) return [];
      const r = await vkApi(ctx, vkCreds(ctx)).call<WallItem[] | { items?: WallItem[] }>('wall.getById', { posts: `${id.ownerId}_${id.postId}` });
      const post = (Array.isArray(r) ? r : (r?.items ?? []))[0];
      if (!post) throw new PlatformError('rejected', `VK has no post ${postId} (deleted, or not visible to this account)`);
      const date = isoDay(ctx.clock.now());
      const series = (label: string, total: number | undefined): AnalyticsSeries => ({ label, percentageChange: 0, data: [{ total: Number(total ?? 0) || 0, date }] });
      return [series('Views', post.views?.count), series('Likes', post.likes?.count), series('Reposts', post.reposts?.count), series('Comments', post.comments?.count)];
    },

    /**
     * The account's wall posts since `since` on the wall the post went to (`settings.community`),
     * newest first; with `replyTo`, its comments on that post (replies to comments included).
     */
    async findRecent({ since, limit, replyTo, settings }, ctx) {
      const c = vkCreds(ctx);
      const api = vkApi(ctx, c);
      const out: { id: string; url: string; content: string; createdAt: string }[] = [];
      const after = (d: number | undefined) => d !== undefined && d * 1000 >= since.getTime();
      if (replyTo) {
        const root = parseItemId(replyTo.rootId);
        const authors = new Set([c.userId, ...(root.ownerId.startsWith('-') ? [root.ownerId] : [])]);
        const r = await api.call<{ items?: CommentItem[] }>('wall.getComments', {
          owner_id: root.ownerId,
          post_id: root.postId,
          count: 100,
          sort: 'desc',
          thread_items_count: 10,
        });
        const all: { c: CommentItem; thread?: number }[] = [];
        for (const top of r?.items ?? []) {
          all.push({ c: top });
          for (const sub of top.thread?.items ?? []) all.push({ c: sub, thread: top.id });
        }
        for (const { c: k, thread } of all) {
          if (!authors.has(String(k.from_id)) || !after(k.date)) continue;
          out.push({ id: `${root.ownerId}_${root.postId}_${k.id}`, url: commentUrl(root.ownerId, root.postId, k.id, thread), content: k.text ?? '', createdAt: new Date(k.date! * 1000).toISOString() });
        }
        return out.sort((a, b) => b.createdAt.localeCompare(a.createdAt)).slice(0, limit);
      }
      const target = targetOf(settings, c.userId);
      const author = authorOf(target, c.userId);
      const r = await api.call<{ items?: WallItem[] }>('wall.get', { owner_id: target.ownerId, count: Math.min(100, Math.max(1, limit)), filter: 'all' });
      for (const p of r?.items ?? []) {
        if (String(p.from_id ?? p.owner_id) !== author || !after(p.date)) continue;
        out.push({ id: `${target.ownerId}_${p.id}`, url: postUrl(target.ownerId, p.id), content: p.text ?? '', createdAt: new Date(p.date! * 1000).toISOString() });
      }
      return out.sort((a, b) => b.createdAt.localeCompare(a.createdAt)).slice(0, limit);
    },
  };
}

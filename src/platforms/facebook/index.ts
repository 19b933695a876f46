import { htmlToText } from '../common/html.js';
import { mediaFileName } from '../common/media.js';
import {
  FACEBOOK_GRAPH,
  FACEBOOK_GRAPH_VIDEO,
  FACEBOOK_WWW,
  graphClient,
  graphRecent,
  graphTime,
  parseToken,
  percentageChange,
  unixSeconds,
  type GraphClient,
} from '../common/meta-client.js';
import { facebookAuthorizeUrl, facebookLogin, managedPages, requireMetaApp, type ManagedPage } from '../common/meta-login.js';
import type { OAuthApp } from '../common/oauth2.js';
import {
  PlatformError,
  type AnalyticsSeries,
  type ConnectedAccount,
  type OperationContext,
  type PlatformAdapter,
  type PostDraft,
  type PublishMedia,
  type PublishResult,
  type ValidationIssue,
} from '../platform.js';
import { facebookError } from './errors.js';
import { facebookMetadata } from './metadata.js';

/** What a connected Facebook Page channel stores (sealed by the caller). */
export interface FacebookCredentials {
  pageId: string;
  /** the Page token: got with a long-lived user token, it does not expire */
  pageToken: string;
  pageName: string;
  /** the long-lived user token (60 days): lists the user's Pages for the `pages` tool and `selectAccount` */
  userToken: string;
  userId: string;
  userTokenExpiresAt: string | null;
}

type Ctx = OperationContext;

/** A reel, a page video or a video story being uploaded and processed (see `advanceVideo`). */
interface VideoToken {
  v: 1;
  kind: 'fb-reel' | 'fb-video' | 'fb-story-video';
  pageId: string;
  videoId: string;
  /** the stored video, reopened for each chunk */
  media: PublishMedia;
  size: number;
  description: string;
  /** rupload URL (reels and stories) */
  uploadUrl?: string;
  /** graph-video resumable session (page videos) */
  sessionId?: string;
}

/** A photo uploaded unpublished, to become a story (see `advancePhotoStory`). */
interface PhotoStoryToken {
  v: 1;
  kind: 'fb-story-photo';
  pageId: string;
  photoId: string;
}

type FacebookToken = VideoToken | PhotoStoryToken;
const TOKEN_KINDS = ['fb-reel', 'fb-video', 'fb-story-video', 'fb-story-photo'] as const;

interface VideoStatus {
  video_status?: string;
  uploading_phase?: { status?: string; bytes_transferred?: number };
  processing_phase?: { status?: string; errors?: { code?: number; message?: string }[] };
  publishing_phase?: { status?: string };
}

const DAY = 86_400_000;
/** Bytes sent per upload request of a video (each request streams a slice of the stored file). */
const DEFAULT_UPLOAD_CHUNK = 16 * 1024 * 1024;
/** Text background presets only apply to short text posts. */
const PRESET_MAX_CHARS = 130;

export const facebookPostUrl = (id: string) => `${FACEBOOK_WWW}/${id}`;
export const facebookReelUrl = (videoId: string) => `${FACEBOOK_WWW}/reel/${videoId}`;
export const facebookVideoUrl = (pageId: string, videoId: string) => `${FACEBOOK_WWW}/${pageId}/videos/${videoId}/`;
export const facebookStoryUrl = (pageId: string, postId: string) => `${FACEBOOK_WWW}/stories/${pageId}/${postId}/`;
/** A comment's link: the post (or video) it is on, opened at the comment (its id's part after `_`). */
export const facebookCommentUrl = (rootId: string, commentId: string) => `${facebookPostUrl(rootId)}?comment_id=${commentId.split('_').pop()!}`;

function creds(ctx: { credentials: Record<string, unknown> }): FacebookCredentials {
  const c = ctx.credentials as Partial<FacebookCredentials>;
  if (!c.pageId || !c.pageToken || !c.userToken) throw new PlatformError('reconnect_required', 'Stored Facebook credentials are incomplete');
  return { pageId: c.pageId, pageToken: c.pageToken, pageName: c.pageName ?? c.pageId, userToken: c.userToken, userId: c.userId ?? '', userTokenExpiresAt: c.userTokenExpiresAt ?? null };
}

const pageApi = (ctx: Pick<Ctx, 'http' | 'clock'>, c: FacebookCredentials): GraphClient => graphClient(ctx, { origin: FACEBOOK_GRAPH, token: c.pageToken, classify: facebookError });
/** Page videos' resumable upload (start, transfer, finish) goes to graph-video. */
const videoApi = (ctx: Pick<Ctx, 'http' | 'clock'>, c: FacebookCredentials): GraphClient => graphClient(ctx, { origin: FACEBOOK_GRAPH_VIDEO, token: c.pageToken, classify: facebookError });

function accountOf(page: ManagedPage, user: { token: string; userId: string; expiresAt: string | null }): ConnectedAccount {
  if (!page.access_token) throw new PlatformError('rejected', `Facebook gave no Page token for ${page.name}: you need a task on the Page that allows creating content`);
  const credentials: FacebookCredentials = { pageId: page.id, pageToken: page.access_token, pageName: page.name, userToken: user.token, userId: user.userId, userTokenExpiresAt: user.expiresAt };
  // The Page token does not expire: no expiry for the channel (the user token only lists Pages).
  return { internalId: page.id, name: page.name, profile: page.username ?? null, picture: page.picture?.data?.url ?? null, credentials: { ...credentials }, expiresAt: null };
}

/** Pages on which the user may publish (Facebook lists them with their tasks). */
const publishable = (pages: ManagedPage[]) => pages.filter((p) => !p.tasks || p.tasks.includes('CREATE_CONTENT'));

function postType(settings: Record<string, unknown>): 'post' | 'reel' | 'story' {
  return settings.post_type === 'story' || settings.post_type === 'reel' ? settings.post_type : 'post';
}

export function validateFacebook(post: PostDraft): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const first = post.items[0];
  if (!first) return issues;
  const type = postType(post.settings);
  const videos = first.media.filter((m) => m.type === 'video');
  if (type === 'story') {
    if (first.media.length !== 1) issues.push({ path: 'value.0.image', code: 'story_media', message: 'A Facebook story is one picture or one video' });
    if (post.items.length > 1) issues.push({ path: 'value.1.content', code: 'story_comments', message: 'Facebook stories cannot be commented on: remove the thread items' });
  }
  if (type === 'reel' && (videos.length !== 1 || first.media.length !== 1)) {
    issues.push({ path: 'value.0.image', code: 'reel_media', message: 'A Facebook reel is exactly one video' });
  }
  const preset = post.settings.text_format_preset_id;
  if (typeof preset === 'string' && preset !== '') {
    if (first.media.length > 0 || (typeof post.settings.url === 'string' && post.settings.url !== '') || type !== 'post') {
      issues.push({ path: 'settings.text_format_preset_id', code: 'preset_text_only', message: 'A background preset only applies to a text-only post without a link' });
    } else if (htmlToText(first.content).length > PRESET_MAX_CHARS) {
      issues.push({ path: 'settings.text_format_preset_id', code: 'preset_too_long', message: `A background preset only applies to texts of up to ${PRESET_MAX_CHARS} characters` });
    }
  }
  return issues;
}

/** Uploads a picture unpublished (multipart `source`, streamed from the stored file); its id is attached to a post or a story. */
async function uploadPhoto(api: GraphClient, ctx: Ctx, pageId: string, m: PublishMedia): Promise<string> {
  const blob = await ctx.openMedia(m);
  const form = new FormData();
  form.append('published', 'false');
  if (m.alt) form.append('alt_text_custom', m.alt.slice(0, 1000));
  form.append('source', blob, mediaFileName({ ...m, mimeType: blob.type || m.mimeType }));
  const res = await api.multipart<{ id?: string }>(`${pageId}/photos`, form);
  if (!res.id) throw new PlatformError('transient', 'Facebook accepted a photo without naming it');
  return res.id;
}

/**
 * One step of a video publish, chosen from what Facebook reports (`GET /{video-id}?fields=status`),
 * so a repeated check never repeats a finished step: upload the next slice from the
 * `bytes_transferred` Facebook has, finish once (only while `publishing_phase` has not started),
 * then wait for processing; a video story is finished once processed, unless the Page's stories
 * already show it.
 */
async function advanceVideo(t: VideoToken, ctx: Ctx, c: FacebookCredentials, chunkBytes: number): Promise<PublishResult> {
  const api = pageApi(ctx, c);
  const pending = (pollAfterMs?: number): PublishResult => ({ status: 'pending', token: JSON.stringify(t), ...(pollAfterMs !== undefined ? { pollAfterMs } : {}) });
  const { status = {} } = await api.get<{ status?: VideoStatus }>(t.videoId, { fields: 'status' });
  const failure = status.processing_phase?.status === 'error' || status.video_status === 'error';
  if (failure) {
    const reason = status.processing_phase?.errors?.map((e) => e.message).filter(Boolean).join('; ');
    throw new PlatformError('rejected', `Facebook could not process the video${reason ? `: ${reason}` : ''}`, { platformCode: 'video_status/error' });
  }

  const transferred = status.uploading_phase?.bytes_transferred ?? 0;
  if (status.uploading_phase?.status !== 'complete' && transferred < t.size) {
    const end = Math.min(t.size, transferred + chunkBytes);
    const slice = (await ctx.openMedia(t.media)).slice(transferred, end);
    if (t.kind === 'fb-video') {
      const form = new FormData();
      form.append('upload_phase', 'transfer');
      form.append('upload_session_id', t.sessionId!);
      form.append('start_offset', String(transferred));
      form.append('video_file_chunk', slice, mediaFileName(t.media));
      await videoApi(ctx, c).multipart(`${t.pageId}/videos`, form);
    } else {
      await api.send({
        method: 'POST',
        url: t.uploadUrl!,
        headers: { authorization: `OAuth ${c.pageToken}`, offset: String(transferred), file_size: String(t.size), 'content-type': 'application/octet-stream' },
        body: slice,
        timeoutMs: 300_000,
      });
    }
    return pending(0);
  }

  if (t.kind === 'fb-story-video') {
    const shown = await findStory(api, t.pageId, t.videoId);
    if (shown) return shown;
    if (status.video_status !== 'ready' && status.processing_phase?.status !== 'complete') return pending();
    const res = await api.post<{ post_id?: string }>(`${t.pageId}/video_stories`, { upload_phase: 'finish', video_id: t.videoId });
    if (!res.post_id) return pending();
    return { status: 'published', id: res.post_id, url: facebookStoryUrl(t.pageId, res.post_id) };
  }

  if (!status.publishing_phase?.status || status.publishing_phase.status === 'not_started') {
    if (t.kind === 'fb-reel') {
      await api.post(`${t.pageId}/video_reels`, { upload_phase: 'finish', video_id: t.videoId, video_state: 'PUBLISHED', description: t.description });
    } else {
      await videoApi(ctx, c).post(`${t.pageId}/videos`, { upload_phase: 'finish', upload_session_id: t.sessionId, description: t.description, published: true });
    }
    return pending();
  }
  if (status.publishing_phase.status !== 'complete') return pending();
  return t.kind === 'fb-reel'
    ? { status: 'published', id: t.videoId, url: facebookReelUrl(t.videoId) }
    : { status: 'published', id: t.videoId, url: facebookVideoUrl(t.pageId, t.videoId) };
}

/** The story of the Page made from `mediaId`, if Facebook shows one (a finish that got through). */
async function findStory(api: GraphClient, pageId: string, mediaId: string): Promise<PublishResult | undefined> {
  const res = await api.get<{ data?: { post_id?: string; media_id?: string; url?: string }[] }>(`${pageId}/stories`);
  const story = (res.data ?? []).find((s) => s.media_id === mediaId && s.post_id);
  return story ? { status: 'published', id: story.post_id!, url: story.url ?? facebookStoryUrl(pageId, story.post_id!) } : undefined;
}

/** Makes the story of an uploaded photo, unless the Page's stories already show it. */
async function advancePhotoStory(t: PhotoStoryToken, ctx: Ctx, c: FacebookCredentials): Promise<PublishResult> {
  const api = pageApi(ctx, c);
  const shown = await findStory(api, t.pageId, t.photoId);
  if (shown) return shown;
  const res = await api.post<{ post_id?: string }>(`${t.pageId}/photo_stories`, { photo_id: t.photoId });
  if (!res.post_id) throw new PlatformError('transient', 'Facebook made the story without naming it', { outcomeUnknown: true });
  return { status: 'published', id: res.post_id, url: facebookStoryUrl(t.pageId, res.post_id) };
}

/** A comment as `GET /{object-id}/comments` gives it (with a Page token, `from` is shown on every comment). */
interface CommentView {
  id: string;
  message?: string;
  created_time?: string;
  from?: { id?: string; name?: string };
}

/** Comments asked for per page. */
const COMMENT_PAGE = 100;
/** Pages of comments read at most: a post flooded with comments since the attempt is not read to its end. */
const COMMENT_PAGES = 20;

/** A Graph time as ISO (the epoch when Facebook gives none, as the posts listing does). */
const isoTime = (time: string | undefined) => new Date(Number.isNaN(graphTime(time)) ? 0 : graphTime(time)).toISOString();

/** What a thread item comments on: the thread's first item (`id` when no root is given). */
const commentTarget = (replyTo: { id: string; rootId: string }) => replyTo.rootId || replyTo.id;

/**
 * The Page's own comments on `rootId` since `since`, newest first, named as `publish` names them:
 * what an interrupted thread item may have become. Thread items are top-level comments on the first
 * item, so the top-level ones are listed, newest first (`order=reverse_chronological`) to stop at
 * the first older one; `from` tells the Page's comments from its readers'.
 */
async function pageComments(api: GraphClient, pageId: string, rootId: string, since: Date, limit: number) {
  const query = { fields: 'id,message,created_time,from', filter: 'toplevel', order: 'reverse_chronological', limit: COMMENT_PAGE };
  const mine = await graphRecent<CommentView>(api, `${rootId}/comments`, query, {
    since: since.getTime(),
    at: (c) => graphTime(c.created_time),
    keep: (c) => c.from?.id === pageId,
    max: limit,
    maxPages: COMMENT_PAGES,
  });
  return mine.map((c) => ({ id: c.id, url: facebookCommentUrl(rootId, c.id), content: c.message ?? '', createdAt: isoTime(c.created_time) }));
}

interface InsightsAnswer {
  data?: { name: string; values?: { value?: number | Record<string, number>; end_time?: string }[] }[];
}

const total = (v: number | Record<string, number> | undefined) => (typeof v === 'number' ? v : v ? Object.values(v).reduce((s, n) => s + (Number(n) || 0), 0) : 0);

const PAGE_METRICS: [metric: string, label: string][] = [
  ['page_total_media_view_unique', 'Reach'],
  ['page_media_view', 'Views'],
  ['page_post_engagements', 'Engagements'],
  ['page_daily_follows', 'New follows'],
];
const POST_METRICS: [metric: string, label: string][] = [
  ['post_total_media_view_unique', 'Reach'],
  ['post_reactions_by_type_total', 'Reactions'],
  ['post_clicks', 'Clicks'],
];

/**
 * Creates the Facebook Page adapter. Facebook Login gives a 60-day user token (no refresh token);
 * connecting lists the Pages the user can publish on and connects the first, the `pages` tool
 * lists them all and `selectAccount` switches to another. The channel posts with the Page token,
 * which does not expire.
 */
export function createFacebookAdapter(config: { app?: OAuthApp; uploadChunkBytes?: number } = {}): PlatformAdapter {
  const displayName = facebookMetadata.displayName;
  const chunkBytes = config.uploadChunkBytes ?? DEFAULT_UPLOAD_CHUNK;

  async function comment(api: GraphClient, rootId: string, text: string): Promise<PublishResult> {
    const res = await api.post<{ id?: string }>(`${rootId}/comments`, { message: text });
    if (!res.id) throw new PlatformError('transient', 'Facebook accepted the comment without naming it', { outcomeUnknown: true });
    return { status: 'published', id: res.id, url: facebookCommentUrl(rootId, res.id) };
  }

  async function startVideo(api: GraphClient, ctx: Ctx, c: FacebookCredentials, kind: VideoToken['kind'], m: PublishMedia, description: string): Promise<PublishResult> {
    const size = (await ctx.openMedia(m)).size;
    let t: VideoToken;
    if (kind === 'fb-video') {
      const res = await videoApi(ctx, c).post<{ video_id?: string; upload_session_id?: string }>(`${c.pageId}/videos`, { upload_phase: 'start', file_size: size });
      if (!res.video_id || !res.upload_session_id) throw new PlatformError('transient', 'Facebook started no video upload');
      t = { v: 1, kind, pageId: c.pageId, videoId: res.video_id, sessionId: res.upload_session_id, media: m, size, description };
    } else {
      const res = await api.post<{ video_id?: string; upload_url?: string }>(`${c.pageId}/${kind === 'fb-reel' ? 'video_reels' : 'video_stories'}`, { upload_phase: 'start' });
      if (!res.video_id || !res.upload_url) throw new PlatformError('transient', 'Facebook started no video upload');
      t = { v: 1, kind, pageId: c.pageId, videoId: res.video_id, uploadUrl: res.upload_url, media: m, size, description };
    }
    // Started: the bytes go in the following checks, one slice each, at once.
    return { status: 'pending', token: JSON.stringify(t), pollAfterMs: 0 };
  }

  return {
    metadata: facebookMetadata,

    async beginConnect(input) {
      const app = requireMetaApp(config.app, displayName);
      return { url: facebookAuthorizeUrl(facebookMetadata, app, input) };
    },

    async completeConnect(input, ctx): Promise<ConnectedAccount> {
      const app = requireMetaApp(config.app, displayName);
      const user = await facebookLogin(facebookMetadata, app, input, ctx);
      const pages = publishable(await managedPages(ctx, user.token));
      const page = pages[0];
      if (!page) throw new PlatformError('rejected', `${user.userName} manages no Facebook Page they can publish on`);
      return accountOf(page, user);
    },

    /** Switches the channel to another Page the user manages (listed by the `pages` tool). */
    async selectAccount(id, ctx): Promise<ConnectedAccount> {
      const c = creds(ctx);
      const page = publishable(await managedPages(ctx, c.userToken)).find((p) => p.id === id || p.username === id);
      if (!page) throw new PlatformError('rejected', `The connected Facebook user cannot publish on Page ${id}`);
      return accountOf(page, { token: c.userToken, userId: c.userId, expiresAt: c.userTokenExpiresAt });
    },

    validate: validateFacebook,

    /**
     * Publishes one item: a post (text, a link, pictures attached unpublished, or a video), a reel,
     * a story, or a comment on the first item for thread items. A text or picture post is NOT
     * idempotent (the publisher reconciles an unknown outcome with `findRecent`). Videos and
     * stories answer `pending` once started; `checkPublish` goes on from what Facebook reports,
     * so it is safe to repeat.
     */
    async publish({ item, settings, replyTo }, ctx): Promise<PublishResult> {
      const c = creds(ctx);
      const api = pageApi(ctx, c);
      const text = htmlToText(item.content);
      if (replyTo) {
        if (item.media.length > 0) throw new PlatformError('rejected', 'Facebook comments are text only');
        return comment(api, commentTarget(replyTo), text);
      }
      const type = postType(settings);
      const video = item.media.find((m) => m.type === 'video');
      const images = item.media.filter((m) => m.type === 'image');
      if (type === 'story') {
        const m = item.media[0];
        if (!m || item.media.length > 1) throw new PlatformError('rejected', 'A Facebook story is one picture or one video');
        if (m.type === 'video') return startVideo(api, ctx, c, 'fb-story-video', m, '');
        const t: PhotoStoryToken = { v: 1, kind: 'fb-story-photo', pageId: c.pageId, photoId: await uploadPhoto(api, ctx, c.pageId, m) };
        // The story is made by the check, which first looks for it among the Page's stories: a
        // crash in between is then recognised (stories are not among the posts `findRecent` sees).
        return { status: 'pending', token: JSON.stringify(t), pollAfterMs: 0 };
      }
      if (video) {
        if (item.media.length > 1) throw new PlatformError('rejected', 'A Facebook video must be the only media of its post');
        return startVideo(api, ctx, c, type === 'reel' ? 'fb-reel' : 'fb-video', video, text);
      }
      if (type === 'reel') throw new PlatformError('rejected', 'A Facebook reel is exactly one video');

      const url = typeof settings.url === 'string' && settings.url !== '' ? settings.url : undefined;
      const body: Record<string, unknown> = { published: true };
      let message = text;
      if (images.length > 0) {
        const ids: string[] = [];
        for (const m of images) ids.push(await uploadPhoto(api, ctx, c.pageId, m));
        body.attached_media = ids.map((id) => ({ media_fbid: id }));
        // A post with pictures shows no link preview: the link goes into the text.
        if (url && !message.includes(url)) message = message ? `${message}\n\n${url}` : url;
      } else if (url) {
        body.link = url;
      } else if (typeof settings.text_format_preset_id === 'string' && settings.text_format_preset_id !== '') {
        body.text_format_preset_id = settings.text_format_preset_id;
      }
      if (message) body.message = message;
      const res = await api.post<{ id?: string; permalink_url?: string }>(`${c.pageId}/feed`, body, { fields: 'id,permalink_url' });
      if (!res.id) throw new PlatformError('transient', 'Facebook accepted the post without naming it', { outcomeUnknown: true });
      return { status: 'published', id: res.id, url: res.permalink_url ?? facebookPostUrl(res.id) };
    },

    /** Goes on with a video or story from what Facebook reports: safe to repeat. */
    async checkPublish(token, ctx): Promise<PublishResult> {
      const c = creds(ctx);
      const t = parseToken<FacebookToken>(token, TOKEN_KINDS, displayName);
      return t.kind === 'fb-story-photo' ? advancePhotoStory(t, ctx, c) : advanceVideo(t, ctx, c, chunkBytes);
    },

    /**
     * The Page's recent posts; with `replyTo`, its comments on the thread's first item instead (a
     * thread item only ever becomes a comment there, and a post with the same text must not be
     * taken for it).
     */
    async findRecent(input, ctx) {
      const c = creds(ctx);
      if (input.replyTo) return pageComments(pageApi(ctx, c), c.pageId, commentTarget(input.replyTo), input.since, Math.max(1, input.limit));
      const res = await pageApi(ctx, c).get<{ data?: { id: string; message?: string; created_time?: string; permalink_url?: string }[] }>(`${c.pageId}/posts`, {
        fields: 'id,message,created_time,permalink_url',
        since: unixSeconds(input.since.getTime()),
        limit: Math.min(100, Math.max(1, input.limit)),
      });
      return (res.data ?? [])
        .map((p) => ({ id: p.id, url: p.permalink_url ?? facebookPostUrl(p.id), content: p.message ?? '', createdAt: p.created_time ? new Date(p.created_time).toISOString() : new Date(0).toISOString() }))
        .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
        .slice(0, input.limit);
    },

    async runTool(methodName, _data, ctx) {
      if (methodName !== 'pages') throw new PlatformError('unsupported', `${displayName} has no tool "${methodName}"`);
      const c = creds(ctx);
      return publishable(await managedPages(ctx, c.userToken)).map((p) => ({
        id: p.id,
        name: p.name,
        username: p.username ?? null,
        picture: p.picture?.data?.url ?? null,
        current: p.id === c.pageId,
      }));
    },

    /** The Page's daily figures over the last `days` complete days (Facebook keeps up to 93 days per call). */
    async analytics(days, ctx): Promise<AnalyticsSeries[]> {
      const c = creds(ctx);
      const until = Math.floor(ctx.clock.now() / DAY) * DAY;
      const since = until - Math.min(93, Math.max(1, Math.floor(days))) * DAY;
      const res = await pageApi(ctx, c).get<InsightsAnswer>(`${c.pageId}/insights`, {
        metric: PAGE_METRICS.map(([m]) => m).join(','),
        period: 'day',
        since: unixSeconds(since),
        until: unixSeconds(until),
      });
      return PAGE_METRICS.map(([metric, label]) => {
        const values = res.data?.find((d) => d.name === metric)?.values ?? [];
        // `end_time` closes the day the value counts.
        const data = values.map((v) => ({ total: total(v.value), date: new Date(Date.parse(v.end_time ?? '') - DAY).toISOString().slice(0, 10) }));
        return { label, percentageChange: percentageChange(data), data };
      });
    },

    /** Lifetime figures of one Page post (reels and stories have none here: an empty list). */
    async postAnalytics(postId, _days, ctx): Promise<AnalyticsSeries[]> {
      if (!postId.includes('_')) return [];
      const c = creds(ctx);
      const res = await pageApi(ctx, c).get<InsightsAnswer>(`${postId}/insights`, { metric: POST_METRICS.map(([m]) => m).join(',') });
      const date = new Date(ctx.clock.now()).toISOString().slice(0, 10);
      return POST_METRICS.map(([metric, label]) => ({
        label,
        percentageChange: 0,
        data: [{ total: total(res.data?.find((d) => d.name === metric)?.values?.[0]?.value), date }],
      }));
    },
  };
}

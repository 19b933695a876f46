/**
 * The Facebook Page client: the Graph requests a Page channel makes with its Page token (pictures
 * uploaded unpublished, videos, reels and stories step by step, posts, comments, the Page's posts
 * and comments, insights) and the reading of their answers. Errors are classified by `errors.ts`.
 */
import { mediaFileName } from '../common/media.js';
import { FACEBOOK_GRAPH, FACEBOOK_GRAPH_VIDEO, FACEBOOK_WWW, graphClient, graphRecent, graphTime, unixSeconds, type GraphClient } from '../common/meta-client.js';
import { PlatformError, type OperationContext, type PublishMedia, type PublishResult } from '../platform.js';
import { facebookError } from './errors.js';

type Ctx = OperationContext;

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

/** A reel, a page video or a video story being uploaded and processed (see `advanceVideo`). */
export interface VideoToken {
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
export interface PhotoStoryToken {
  v: 1;
  kind: 'fb-story-photo';
  pageId: string;
  photoId: string;
}

export type FacebookToken = VideoToken | PhotoStoryToken;
export const TOKEN_KINDS = ['fb-reel', 'fb-video', 'fb-story-video', 'fb-story-photo'] as const;

interface VideoStatus {
  video_status?: string;
  uploading_phase?: { status?: string; bytes_transferred?: number };
  processing_phase?: { status?: string; errors?: { code?: number; message?: string }[] };
  publishing_phase?: { status?: string };
}

/** Bytes sent per upload request of a video (each request streams a slice of the stored file). */
export const DEFAULT_UPLOAD_CHUNK = 16 * 1024 * 1024;

export const facebookPostUrl = (id: string) => `${FACEBOOK_WWW}/${id}`;
export const facebookReelUrl = (videoId: string) => `${FACEBOOK_WWW}/reel/${videoId}`;
export const facebookVideoUrl = (pageId: string, videoId: string) => `${FACEBOOK_WWW}/${pageId}/videos/${videoId}/`;
export const facebookStoryUrl = (pageId: string, postId: string) => `${FACEBOOK_WWW}/stories/${pageId}/${postId}/`;
/** A comment's link: the post (or video) it is on, opened at the comment (its id's part after `_`). */
export const facebookCommentUrl = (rootId: string, commentId: string) => `${facebookPostUrl(rootId)}?comment_id=${commentId.split('_').pop()!}`;

export const pageApi = (ctx: Pick<Ctx, 'http' | 'clock'>, c: FacebookCredentials): GraphClient => graphClient(ctx, { origin: FACEBOOK_GRAPH, token: c.pageToken, classify: facebookError });
/** Page videos' resumable upload (start, transfer, finish) goes to graph-video. */
export const videoApi = (ctx: Pick<Ctx, 'http' | 'clock'>, c: FacebookCredentials): GraphClient => graphClient(ctx, { origin: FACEBOOK_GRAPH_VIDEO, token: c.pageToken, classify: facebookError });

/** Uploads a picture unpublished (multipart `source`, streamed from the stored file); its id is attached to a post or a story. */
export async function uploadPhoto(api: GraphClient, ctx: Ctx, pageId: string, m: PublishMedia): Promise<string> {
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
export async function advanceVideo(t: VideoToken, ctx: Ctx, c: FacebookCredentials, chunkBytes: number): Promise<PublishResult> {
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
export async function findStory(api: GraphClient, pageId: string, mediaId: string): Promise<PublishResult | undefined> {
  const res = await api.get<{ data?: { post_id?: string; media_id?: string; url?: string }[] }>(`${pageId}/stories`);
  const story = (res.data ?? []).find((s) => s.media_id === mediaId && s.post_id);
  return story ? { status: 'published', id: story.post_id!, url: story.url ?? facebookStoryUrl(pageId, story.post_id!) } : undefined;
}

/** Makes the story of an uploaded photo, unless the Page's stories already show it. */
export async function advancePhotoStory(t: PhotoStoryToken, ctx: Ctx, c: FacebookCredentials): Promise<PublishResult> {
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
export const commentTarget = (replyTo: { id: string; rootId: string }) => replyTo.rootId || replyTo.id;

/**
 * The Page's own comments on `rootId` since `since`, newest first, named as `publish` names them:
 * what an interrupted thread item may have become. Thread items are top-level comments on the first
 * item, so the top-level ones are listed, newest first (`order=reverse_chronological`) to stop at
 * the first older one; `from` tells the Page's comments from its readers'.
 */
export async function pageComments(api: GraphClient, pageId: string, rootId: string, since: Date, limit: number) {
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

export interface InsightsAnswer {
  data?: { name: string; values?: { value?: number | Record<string, number>; end_time?: string }[] }[];
}

export const total = (v: number | Record<string, number> | undefined) => (typeof v === 'number' ? v : v ? Object.values(v).reduce((s, n) => s + (Number(n) || 0), 0) : 0);

export const PAGE_METRICS: [metric: string, label: string][] = [
  ['page_total_media_view_unique', 'Reach'],
  ['page_media_view', 'Views'],
  ['page_post_engagements', 'Engagements'],
  ['page_daily_follows', 'New follows'],
];
export const POST_METRICS: [metric: string, label: string][] = [
  ['post_total_media_view_unique', 'Reach'],
  ['post_reactions_by_type_total', 'Reactions'],
  ['post_clicks', 'Clicks'],
];

export async function comment(api: GraphClient, rootId: string, text: string): Promise<PublishResult> {
  const res = await api.post<{ id?: string }>(`${rootId}/comments`, { message: text });
  if (!res.id) throw new PlatformError('transient', 'Facebook accepted the comment without naming it', { outcomeUnknown: true });
  return { status: 'published', id: res.id, url: facebookCommentUrl(rootId, res.id) };
}

export async function startVideo(api: GraphClient, ctx: Ctx, c: FacebookCredentials, kind: VideoToken['kind'], m: PublishMedia, description: string): Promise<PublishResult> {
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

/** Publishes a post on the Page's feed (text, a link, a preset or attached pictures). */
export async function createFeedPost(api: GraphClient, pageId: string, body: Record<string, unknown>): Promise<PublishResult> {
  const res = await api.post<{ id?: string; permalink_url?: string }>(`${pageId}/feed`, body, { fields: 'id,permalink_url' });
  if (!res.id) throw new PlatformError('transient', 'Facebook accepted the post without naming it', { outcomeUnknown: true });
  return { status: 'published', id: res.id, url: res.permalink_url ?? facebookPostUrl(res.id) };
}

/** The Page's posts since `since`, newest first, at most `limit`. */
export async function recentPagePosts(api: GraphClient, pageId: string, since: Date, limit: number) {
  const res = await api.get<{ data?: { id: string; message?: string; created_time?: string; permalink_url?: string }[] }>(`${pageId}/posts`, {
    fields: 'id,message,created_time,permalink_url',
    since: unixSeconds(since.getTime()),
    limit: Math.min(100, Math.max(1, limit)),
  });
  return (res.data ?? [])
    .map((p) => ({ id: p.id, url: p.permalink_url ?? facebookPostUrl(p.id), content: p.message ?? '', createdAt: p.created_time ? new Date(p.created_time).toISOString() : new Date(0).toISOString() }))
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
    .slice(0, limit);
}

/** The Page's daily `PAGE_METRICS` between `since` and `until` (ms). */
export const pageInsights = (api: GraphClient, pageId: string, since: number, until: number) =>
  api.get<InsightsAnswer>(`${pageId}/insights`, {
    metric: PAGE_METRICS.map(([m]) => m).join(','),
    period: 'day',
    since: unixSeconds(since),
    until: unixSeconds(until),
  });

/** A Page post's lifetime `POST_METRICS`. */
export const postInsights = (api: GraphClient, postId: string) => api.get<InsightsAnswer>(`${postId}/insights`, { metric: POST_METRICS.map(([m]) => m).join(',') });

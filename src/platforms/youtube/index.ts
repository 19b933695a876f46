import { percentageChange } from '../common/figures.js';
import { htmlToText } from '../common/html.js';
import type { OAuthApp } from '../common/oauth2.js';
import {
  PlatformError,
  type AnalyticsSeries,
  type ConnectedAccount,
  type PlatformAdapter,
  type PostDraft,
  type PublishMedia,
  type PublishResult,
  type ValidationIssue,
} from '../platform.js';
import {
  channelAccount,
  channelById,
  exchangeYoutubeCode,
  googleGet,
  googleRequest,
  myChannels,
  refreshYoutube,
  requireApp,
  tokenCredentials,
  CHUNK_GRANULE,
  continueUpload,
  createSession,
  YOUTUBE_ANALYTICS_ORIGIN,
  YOUTUBE_API,
  YOUTUBE_UPLOAD,
  youtubeAuthorizeUrl,
  youtubeCommentUrl,
  youtubeCreds,
  youtubeVideoUrl,
  type Ctx,
  type UploadOptions,
  type UploadState,
  type VideoResource,
  type YoutubeCredentials,
} from './client.js';
import { youtubeMetadata, YoutubeSettingsSchema, type YoutubeSettings } from './metadata.js';

export {
  GOOGLE_ACCOUNTS_ORIGIN,
  GOOGLE_APIS_ORIGIN,
  GOOGLE_OAUTH_ORIGIN,
  YOUTUBE_ANALYTICS_ORIGIN,
  youtubeCommentUrl,
  youtubeVideoUrl,
  type YoutubeCredentials,
} from './client.js';

export interface YoutubeAdapterConfig {
  app?: OAuthApp;
  /** bytes per upload PUT: a multiple of 256 KiB (default 8 MiB) */
  chunkBytes?: number;
  /** most upload PUTs in one `checkPublish` (default 32) */
  maxChunksPerCheck?: number;
  /** real time one `checkPublish` may spend starting new chunks (default 60 s) */
  checkBudgetMs?: number;
  /**
   * How long after the upload to wait for YouTube's processing before answering `published`
   * anyway (default 10 minutes): the video exists at its URL while YouTube processes it, and long
   * videos can take hours; a failure within this time fails the post with YouTube's reason.
   */
  processingWaitMs?: number;
}

/**
 * What `checkPublish` needs to go on (JSON): the video resource and the file, the upload session
 * and the offset reached (`upload`), then the video id once uploaded. A restart resumes from here.
 */
interface PendingToken {
  v: 1;
  stage: 'upload' | 'uploaded';
  /** when publishing began (ISO): bounds the look for a video already made from this token */
  since: string;
  video: VideoResource;
  notifySubscribers: boolean;
  short: boolean;
  media: PublishMedia;
  thumbnail?: { id: string; path: string };
  upload?: UploadState;
  videoId?: string;
  /** when the upload completed (ISO) */
  uploadedAt?: string;
  thumbnailDone?: boolean;
}

/** YouTube's words for `status.failureReason` and `status.rejectionReason`. */
const FAILURE_REASONS: Record<string, string> = {
  codec: 'the video uses a codec YouTube does not support',
  conversion: 'YouTube could not convert the video',
  emptyFile: 'the file is empty',
  invalidFile: 'the file is not a video YouTube can read',
  tooSmall: 'the file is too small',
  uploadAborted: 'the upload was aborted',
};
const REJECTION_REASONS: Record<string, string> = {
  claim: 'a rights holder claimed the video',
  copyright: 'the video infringes copyright',
  duplicate: 'the video duplicates one already uploaded',
  inappropriate: 'the video has inappropriate content',
  legal: 'the video was rejected for legal reasons',
  length: 'the video is longer than the channel may upload',
  termsOfUse: 'the video breaks the Terms of Service',
  trademark: 'the video infringes a trademark',
  uploaderAccountClosed: "the uploader's account is closed",
  uploaderAccountSuspended: "the uploader's account is suspended",
};

const LOOKBACK_MARGIN_MS = 5 * 60_000;
const DAY = 86_400_000;

function parseToken(token: string): PendingToken {
  try {
    const t = JSON.parse(token) as PendingToken;
    if (t.v === 1 && (t.stage === 'upload' || t.stage === 'uploaded') && typeof t.video?.snippet?.title === 'string' && typeof t.media?.id === 'string') return t;
  } catch {
    // fall through
  }
  throw new PlatformError('rejected', 'Unreadable YouTube publish token');
}

function readSettings(settings: Record<string, unknown>): YoutubeSettings {
  const { __type: _ignored, ...rest } = settings;
  const parsed = YoutubeSettingsSchema.safeParse(rest);
  if (!parsed.success) {
    const first = parsed.error.issues[0]!;
    throw new PlatformError('rejected', `settings.${first.path.map(String).join('.')}: ${first.message}`);
  }
  return parsed.data;
}

/** The video resource (`part=snippet,status`) from the text and the settings. */
export function videoResource(content: string, s: YoutubeSettings): VideoResource {
  const snippet: VideoResource['snippet'] = { title: s.title, description: htmlToText(content) };
  if (s.tags?.length) snippet.tags = s.tags.map((t) => t.label);
  if (s.categoryId) snippet.categoryId = s.categoryId;
  const status: VideoResource['status'] = { privacyStatus: s.type };
  if (s.selfDeclaredMadeForKids) status.selfDeclaredMadeForKids = s.selfDeclaredMadeForKids === 'yes';
  if (s.publishAt) status.publishAt = new Date(s.publishAt).toISOString();
  return { snippet, status };
}

/** A guess at a picture's type from its path, for a thumbnail whose stored type is unknown. */
function imageTypeOf(path: string): string {
  return /\.png(?:$|[?#])/i.test(path) ? 'image/png' : 'image/jpeg';
}

interface VideoStatusResource {
  id: string;
  snippet?: { channelId?: string; title?: string };
  status?: { uploadStatus?: string; failureReason?: string; rejectionReason?: string; privacyStatus?: string };
  processingDetails?: { processingStatus?: string; processingProgress?: { timeLeftMs?: string | number }; processingFailureReason?: string };
  statistics?: { viewCount?: string; likeCount?: string; commentCount?: string; favoriteCount?: string };
}

interface PlaylistItem {
  snippet?: { publishedAt?: string; title?: string; description?: string; resourceId?: { videoId?: string } };
  contentDetails?: { videoId?: string; videoPublishedAt?: string };
}

interface CommentThread {
  id: string;
  snippet?: {
    videoId?: string;
    topLevelComment?: { id?: string; snippet?: { textOriginal?: string; textDisplay?: string; publishedAt?: string; authorChannelId?: { value?: string } } };
  };
}

/**
 * Creates the YouTube adapter: Google OAuth 2 with PKCE and offline access (one-hour access
 * tokens, refreshed), the channel from `channels?mine=true` (the first; the `channels` tool lists
 * them and `selectAccount` switches), videos by resumable upload continued across
 * `checkPublish` calls, then the thumbnail, then YouTube's processing; thread items are comments.
 */
export function createYoutubeAdapter(config: YoutubeAdapterConfig = {}): PlatformAdapter {
  const chunkBytes = config.chunkBytes ?? 8 * 1024 * 1024;
  if (chunkBytes <= 0 || chunkBytes % CHUNK_GRANULE !== 0) throw new Error('YouTube upload chunks must be a multiple of 256 KiB');
  const uploadOptions: UploadOptions = {
    chunkBytes,
    maxChunksPerCall: config.maxChunksPerCheck ?? 32,
    budgetMs: config.checkBudgetMs ?? 60_000,
    maxResumesPerCall: 3,
  };
  const processingWaitMs = config.processingWaitMs ?? 10 * 60_000;

  function pending(t: PendingToken, pollAfterMs?: number): PublishResult {
    return { status: 'pending', token: JSON.stringify(t), ...(pollAfterMs !== undefined ? { pollAfterMs } : {}) };
  }

  /** The channel's uploads playlist (stored since connect; asked for when missing). */
  async function uploadsPlaylist(ctx: Ctx, c: YoutubeCredentials): Promise<string> {
    if (c.uploadsPlaylistId) return c.uploadsPlaylistId;
    const channel = await channelById(ctx, c.accessToken, c.channelId);
    if (!channel?.uploadsPlaylistId) throw new PlatformError('rejected', `YouTube does not show channel ${c.channelId}`);
    return channel.uploadsPlaylistId;
  }

  /** The channel's videos since `since`, newest first (the uploads playlist lists private and processing ones to the owner). */
  async function recentUploads(ctx: Ctx, c: YoutubeCredentials, since: number, limit: number): Promise<PlaylistItem[]> {
    const playlistId = await uploadsPlaylist(ctx, c);
    const out: PlaylistItem[] = [];
    let pageToken: string | undefined;
    do {
      const q = new URLSearchParams({ part: 'snippet,contentDetails', playlistId, maxResults: '50' });
      if (pageToken) q.set('pageToken', pageToken);
      const page = await googleGet<{ items?: PlaylistItem[]; nextPageToken?: string }>(ctx, c.accessToken, `${YOUTUBE_API}/playlistItems?${q.toString().replace(/%2C/g, ',')}`);
      const items = page.items ?? [];
      let older = false;
      for (const item of items) {
        const at = Date.parse(item.snippet?.publishedAt ?? item.contentDetails?.videoPublishedAt ?? '');
        if (Number.isFinite(at) && at < since) {
          older = true;
          continue;
        }
        out.push(item);
      }
      pageToken = older ? undefined : page.nextPageToken;
    } while (pageToken && out.length < limit);
    return out.slice(0, limit);
  }

  /** A video this token already made (its upload completed, the answer lost, the session gone since). */
  async function uploadedFrom(ctx: Ctx, c: YoutubeCredentials, t: PendingToken): Promise<string | undefined> {
    const items = await recentUploads(ctx, c, Date.parse(t.since) - LOOKBACK_MARGIN_MS, 50);
    const found = items.find((i) => i.snippet?.title === t.video.snippet.title && (i.snippet?.description ?? '') === t.video.snippet.description);
    return found?.contentDetails?.videoId ?? found?.snippet?.resourceId?.videoId;
  }

  /** Sets the thumbnail; a refusal (unverified channel, unsupported picture) leaves the video as it is. */
  async function setThumbnail(ctx: Ctx, c: YoutubeCredentials, videoId: string, ref: { id: string; path: string }): Promise<void> {
    let blob: Blob;
    try {
      blob = await ctx.openMedia({ id: ref.id, path: ref.path, type: 'image', mimeType: imageTypeOf(ref.path), size: 0 });
    } catch (e) {
      ctx.logger.warn({ err: e, videoId, thumbnail: ref.id }, 'YouTube thumbnail not available; the video keeps its own');
      return;
    }
    try {
      await googleRequest(ctx, c.accessToken, {
        method: 'POST',
        url: `${YOUTUBE_UPLOAD}/thumbnails/set?videoId=${encodeURIComponent(videoId)}&uploadType=media`,
        headers: { 'content-type': blob.type || imageTypeOf(ref.path) },
        body: blob,
        timeoutMs: 120_000,
      });
    } catch (e) {
      if (!(e instanceof PlatformError) || e.kind !== 'rejected') throw e;
      ctx.logger.warn({ err: e, videoId }, `YouTube refused the thumbnail (${e.message}); the video keeps its own`);
    }
  }

  /** After the upload: the thumbnail once, then YouTube's processing. */
  async function afterUpload(ctx: Ctx, c: YoutubeCredentials, t: PendingToken): Promise<PublishResult> {
    const videoId = t.videoId!;
    if (t.thumbnail && !t.thumbnailDone) {
      await setThumbnail(ctx, c, videoId, t.thumbnail);
      t = { ...t, thumbnailDone: true };
    }
    const page = await googleGet<{ items?: VideoStatusResource[] }>(ctx, c.accessToken, `${YOUTUBE_API}/videos?part=status,processingDetails&id=${encodeURIComponent(videoId)}`);
    const video = page.items?.[0];
    if (!video) throw new PlatformError('rejected', `The uploaded video ${videoId} is no longer on YouTube (deleted)`);
    const s = video.status ?? {};
    const url = youtubeVideoUrl(videoId, t.short);
    switch (s.uploadStatus) {
      case 'processed':
        return { status: 'published', id: videoId, url };
      case 'failed': {
        const reason = s.failureReason ?? video.processingDetails?.processingFailureReason ?? 'unknown';
        throw new PlatformError('rejected', `YouTube could not process the video: ${reason}${FAILURE_REASONS[reason] ? ` (${FAILURE_REASONS[reason]})` : ''}`, { platformCode: reason });
      }
      case 'rejected': {
        const reason = s.rejectionReason ?? 'unknown';
        throw new PlatformError('rejected', `YouTube rejected the video: ${reason}${REJECTION_REASONS[reason] ? ` (${REJECTION_REASONS[reason]})` : ''}`, { platformCode: reason });
      }
      case 'deleted':
        throw new PlatformError('rejected', 'YouTube deleted the video before it was processed', { platformCode: 'deleted' });
      default: {
        // 'uploaded': still processing. The video is at its URL already; past the wait, say so.
        if (ctx.clock.now() - Date.parse(t.uploadedAt ?? t.since) > processingWaitMs) {
          ctx.logger.info({ videoId }, 'YouTube is still processing the video; answering published');
          return { status: 'published', id: videoId, url };
        }
        const left = Number(video.processingDetails?.processingProgress?.timeLeftMs);
        return pending(t, Number.isFinite(left) && left > 0 ? Math.min(60_000, Math.max(1_000, left)) : undefined);
      }
    }
  }

  function uploaded(ctx: Ctx, t: PendingToken, videoId: string): PendingToken {
    const { upload: _done, ...rest } = t;
    return { ...rest, stage: 'uploaded', videoId, uploadedAt: new Date(ctx.clock.now()).toISOString() };
  }

  return {
    metadata: youtubeMetadata,

    async beginConnect(input) {
      return { url: youtubeAuthorizeUrl(requireApp(config.app), input) };
    },

    async completeConnect(input, ctx): Promise<ConnectedAccount> {
      const tokens = await exchangeYoutubeCode(requireApp(config.app), input, ctx);
      const channels = await myChannels(ctx, tokens.accessToken);
      const channel = channels[0];
      if (!channel) throw new PlatformError('rejected', 'This Google account has no YouTube channel: create one on YouTube first, then connect again');
      return channelAccount(channel, tokenCredentials(tokens));
    },

    refresh: (ctx) => refreshYoutube(config.app, ctx),

    /** Switches the channel to another one the grant reaches (listed by the `channels` tool). */
    async selectAccount(id, ctx): Promise<ConnectedAccount> {
      const c = youtubeCreds(ctx);
      const channel = (await myChannels(ctx, c.accessToken)).find((ch) => ch.id === id || ch.customUrl === id);
      if (!channel) throw new PlatformError('rejected', `The connected Google account does not reach YouTube channel ${id}`);
      return channelAccount(channel, c);
    },

    validate(post: PostDraft): ValidationIssue[] {
      const issues: ValidationIssue[] = [];
      const title = post.settings.title;
      // YouTube refuses angle brackets in titles and descriptions (invalidTitle, invalidDescription).
      if (typeof title === 'string' && /[<>]/.test(title)) {
        issues.push({ path: 'settings.title', code: 'invalid_title', message: 'A YouTube title cannot contain < or >' });
      }
      const first = post.items[0];
      if (first && /[<>]/.test(htmlToText(first.content))) {
        issues.push({ path: 'value.0.content', code: 'invalid_description', message: 'A YouTube description cannot contain < or >' });
      }
      return issues;
    },

    /**
     * The first item opens a resumable upload session for its video and answers `pending` at once
     * (`pollAfterMs: 0`): the bytes go up in `checkPublish`, so that an interruption resumes
     * from the offset Google kept. Opening a session creates no video, so a retried publish
     * leaves nothing twice. Thread items are comments on the video (`commentThreads.insert`),
     * NOT idempotent (YouTube has no idempotency key): the publisher reconciles with `findRecent`.
     */
    async publish({ item, settings, replyTo }, ctx): Promise<PublishResult> {
      const c = youtubeCreds(ctx);
      if (replyTo) {
        if (item.media.length > 0) throw new PlatformError('rejected', 'YouTube comments are text only');
        const videoId = replyTo.rootId || replyTo.id;
        const res = await googleRequest(ctx, c.accessToken, {
          method: 'POST',
          url: `${YOUTUBE_API}/commentThreads?part=snippet`,
          body: { snippet: { videoId, topLevelComment: { snippet: { textOriginal: htmlToText(item.content) } } } },
        });
        const thread = res.body as CommentThread | null;
        if (!thread?.id) throw new PlatformError('transient', 'YouTube accepted the comment without naming it', { outcomeUnknown: true });
        return { status: 'published', id: thread.id, url: youtubeCommentUrl(videoId, thread.id) };
      }

      const s = readSettings(settings);
      const videos = item.media.filter((m) => m.type === 'video');
      if (videos.length !== 1 || item.media.length !== 1) throw new PlatformError('rejected', 'A YouTube post needs exactly one video');
      const media = videos[0]!;
      const blob = await ctx.openMedia(media);
      if (blob.size === 0) throw new PlatformError('rejected', 'The video file is empty');
      const video = videoResource(item.content, s);
      const notifySubscribers = s.notifySubscribers !== false;
      const upload = await createSession(ctx, c, { video, total: blob.size, mimeType: media.mimeType, notifySubscribers });
      const token: PendingToken = {
        v: 1,
        stage: 'upload',
        since: new Date(ctx.clock.now()).toISOString(),
        video,
        notifySubscribers,
        short: s.short === true,
        media: { id: media.id, path: media.path, type: media.type, mimeType: media.mimeType, size: media.size },
        ...(s.thumbnail ? { thumbnail: { id: s.thumbnail.id, path: s.thumbnail.path } } : {}),
        upload,
      };
      return pending(token, 0);
    },

    /**
     * Goes on from the token: uploads the next chunks (after asking Google where the upload
     * stands), then sets the thumbnail, then waits for YouTube's processing. Idempotent: the
     * upload's progress is Google's answer, not ours; a session that is gone is replaced only
     * after looking in the channel's uploads for a video this token already made.
     */
    async checkPublish(token, ctx): Promise<PublishResult> {
      const c = youtubeCreds(ctx);
      let t = parseToken(token);
      if (t.stage === 'upload') {
        const u = t.upload;
        if (!u) throw new PlatformError('rejected', 'Unreadable YouTube publish token (no upload session)');
        const step = await continueUpload(ctx, c, u, await ctx.openMedia(t.media), uploadOptions);
        if (step.status === 'uploading') return pending({ ...t, upload: step.upload }, 0);
        if (step.status === 'expired') {
          const existing = await uploadedFrom(ctx, c, t);
          if (!existing) {
            ctx.logger.warn({ reason: step.reason }, 'YouTube upload session gone; starting a new one');
            const upload = await createSession(ctx, c, { video: t.video, total: u.total, mimeType: t.media.mimeType, notifySubscribers: t.notifySubscribers });
            return pending({ ...t, upload }, 0);
          }
          t = uploaded(ctx, t, existing);
        } else {
          const channelId = step.video.snippet?.channelId;
          if (channelId && channelId !== c.channelId) {
            ctx.logger.warn({ videoId: step.video.id, channelId, selected: c.channelId }, 'YouTube put the video on the channel the authorisation was granted for, not the selected one');
          }
          t = uploaded(ctx, t, step.video.id);
        }
      }
      return afterUpload(ctx, c, t);
    },

    /** The channel's videos (description as content) and its own top-level comments on them, newest first. */
    async findRecent({ since, limit }, ctx) {
      const c = youtubeCreds(ctx);
      const videos = (await recentUploads(ctx, c, since.getTime(), limit)).flatMap((i) => {
        const id = i.contentDetails?.videoId ?? i.snippet?.resourceId?.videoId;
        if (!id) return [];
        return [{ id, url: youtubeVideoUrl(id), content: i.snippet?.description ?? '', createdAt: i.snippet?.publishedAt ?? i.contentDetails?.videoPublishedAt ?? '' }];
      });
      const q = new URLSearchParams({ part: 'snippet', allThreadsRelatedToChannelId: c.channelId, maxResults: '50', order: 'time' });
      const threads = await googleGet<{ items?: CommentThread[] }>(ctx, c.accessToken, `${YOUTUBE_API}/commentThreads?${q.toString()}`);
      const comments = (threads.items ?? []).flatMap((th) => {
        const top = th.snippet?.topLevelComment?.snippet;
        const at = Date.parse(top?.publishedAt ?? '');
        if (!top || top.authorChannelId?.value !== c.channelId || !th.snippet?.videoId || (Number.isFinite(at) && at < since.getTime())) return [];
        return [{ id: th.id, url: youtubeCommentUrl(th.snippet.videoId, th.id), content: top.textOriginal ?? top.textDisplay ?? '', createdAt: top.publishedAt ?? '' }];
      });
      return [...videos, ...comments].sort((a, b) => b.createdAt.localeCompare(a.createdAt)).slice(0, limit);
    },

    async runTool(methodName, _data, ctx) {
      if (methodName !== 'channels') throw new PlatformError('unsupported', `YouTube has no tool "${methodName}"`);
      const c = youtubeCreds(ctx);
      const channels = await myChannels(ctx, c.accessToken);
      return channels.map((ch) => ({ id: ch.id, name: ch.title, handle: ch.customUrl, picture: ch.picture, current: ch.id === c.channelId }));
    },

    /**
     * Daily figures of the channel over the last `days` days (YouTube Analytics API v2
     * `reports`, `dimensions=day`); days YouTube reports nothing for count 0 (its figures lag by a
     * day or two).
     */
    async analytics(days, ctx): Promise<AnalyticsSeries[]> {
      const c = youtubeCreds(ctx);
      const n = Math.max(1, Math.floor(days));
      const end = Math.floor(ctx.clock.now() / DAY) * DAY;
      const dates: string[] = [];
      for (let i = n - 1; i >= 0; i--) dates.push(new Date(end - i * DAY).toISOString().slice(0, 10));
      const metrics = ['views', 'estimatedMinutesWatched', 'likes', 'comments', 'subscribersGained', 'subscribersLost'];
      const q = new URLSearchParams({ ids: `channel==${c.channelId}`, startDate: dates[0]!, endDate: dates.at(-1)!, metrics: metrics.join(','), dimensions: 'day', sort: 'day' });
      const table = await googleGet<{ columnHeaders?: { name: string }[]; rows?: (string | number)[][] }>(
        ctx,
        c.accessToken,
        `${YOUTUBE_ANALYTICS_ORIGIN}/v2/reports?${q.toString().replace(/%2C/g, ',').replace(/%3D/g, '=')}`,
      );
      const columns = (table.columnHeaders ?? []).map((h) => h.name);
      const dayCol = columns.indexOf('day');
      const byDay = new Map((table.rows ?? []).map((r) => [String(r[dayCol]), r]));
      const labels: Record<string, string> = {
        views: 'Views',
        estimatedMinutesWatched: 'Minutes watched',
        likes: 'Likes',
        comments: 'Comments',
        subscribersGained: 'Subscribers gained',
        subscribersLost: 'Subscribers lost',
      };
      return metrics.map((m) => {
        const col = columns.indexOf(m);
        const data = dates.map((date) => ({ date, total: col < 0 ? 0 : Number(byDay.get(date)?.[col] ?? 0) || 0 }));
        return { label: labels[m]!, percentageChange: percentageChange(data), data };
      });
    },

    /** A video's lifetime counts (`videos?part=statistics`), as one point today. */
    async postAnalytics(postId, _days, ctx): Promise<AnalyticsSeries[]> {
      const c = youtubeCreds(ctx);
      const page = await googleGet<{ items?: VideoStatusResource[] }>(ctx, c.accessToken, `${YOUTUBE_API}/videos?part=statistics&id=${encodeURIComponent(postId)}`);
      const stats = page.items?.[0]?.statistics;
      if (!stats) return [];
      const date = new Date(ctx.clock.now()).toISOString().slice(0, 10);
      const figures: [string, string | undefined][] = [
        ['Views', stats.viewCount],
        ['Likes', stats.likeCount],
        ['Comments', stats.commentCount],
        ['Favorites', stats.favoriteCount],
      ];
      return figures.map(([label, v]) => ({ label, percentageChange: 0, data: [{ total: Number(v ?? 0) || 0, date }] }));
    },
  };
}

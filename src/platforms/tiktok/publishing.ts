import { htmlToText } from '../common/html.js';
import { PlatformError, type PostDraft, type PublishItem, type PublishMedia, type PublishResult, type ValidationIssue } from '../platform.js';
import { chunkRange, planChunks, tiktokApi, tiktokCreds, tiktokPostUrl, type CreatorInfo, type Ctx, type PublishStatus, type TiktokApi } from './client.js';
import { tiktokError } from './errors.js';
import { TiktokSettingsSchema } from './metadata.js';
import type { z } from 'zod';

type Settings = z.infer<typeof TiktokSettingsSchema>;
type Mode = Settings['content_posting_method'];

/** What a post that TikTok has not published yet needs to go on (stored by the publisher as JSON). */
export interface PendingPublish {
  v: 1;
  kind: 'video' | 'photo';
  mode: Mode;
  /** TikTok's id of this publishing task */
  publishId: string;
  /** for the post URL */
  username: string;
  privacy: string | null;
  /** ms, when the task was initialised */
  startedAt: number;
  /** ms, when TikTok first said PUBLISH_COMPLETE without a public id (moderation still running) */
  idWaitSince?: number;
  /** a video still being uploaded: where to PUT, and the next chunk to send */
  upload?: { url: string; media: PublishMedia; size: number; chunkSize: number; chunks: number; next: number };
}

/** The release id of a post whose TikTok id is not known (inbox uploads, private posts). */
export const MISSING = 'missing';

/**
 * How long to wait for `publicaly_available_post_id` once TikTok says PUBLISH_COMPLETE: public posts
 * get it when moderation is done (usually within a minute). Bounded so that the post still ends
 * inside the publisher's 30-minute limit for pending work; after that it ends `missing` and the
 * id can be attached later (`GET /posts/{id}/missing`).
 */
const ID_WAIT_MS = 10 * 60_000;
const ID_WAIT_LATEST_MS = 25 * 60_000;

/** Video caption (post title) limit, UTF-16 code units; photo descriptions take 4,000. */
const VIDEO_CAPTION_MAX = 2200;
const PHOTO_DESCRIPTION_MAX = 4000;

const LIST_FIELDS = ['id', 'title', 'video_description', 'create_time', 'share_url', 'cover_image_url'] as const;

/** TikTok's own rules that the metadata cannot express (pure). */
export function validateTiktok(post: PostDraft): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const first = post.items[0];
  if (!first) return issues;
  const video = first.media.find((m) => m.type === 'video');
  // Photos are pulled by TikTok as stored: their types and size are `pulled` rules in the metadata.
  const text = htmlToText(first.content);
  const max = video ? VIDEO_CAPTION_MAX : PHOTO_DESCRIPTION_MAX;
  if (text.length > max) {
    issues.push({ path: 'value.0.content', code: 'too_long', message: `TikTok takes ${video ? 'captions' : 'photo descriptions'} up to ${max} characters; this one has ${text.length}` });
  }
  const s = post.settings;
  if (s.content_posting_method === 'DIRECT_POST' && s.brand_content_toggle === true && s.privacy_level === 'SELF_ONLY') {
    issues.push({ path: 'settings.brand_content_toggle', code: 'branded_content_private', message: 'TikTok does not allow branded content (a paid partnership) to be private: choose another privacy level' });
  }
  return issues;
}

function parseSettings(raw: Record<string, unknown>): Settings {
  const parsed = TiktokSettingsSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new PlatformError('rejected', `settings.${issue.path.join('.')}: ${issue.message}`);
}

/**
 * What the creator allows now, checked before anything is sent: a privacy level TikTok does not
 * offer this account, a switch the creator turned off, a video longer than it may post. Each
 * problem names the setting (or media item) to change.
 */
function checkAgainstCreator(info: CreatorInfo, s: Settings, video: PublishMedia | undefined): void {
  const problems: string[] = [];
  const offered = info.privacy_level_options ?? [];
  if (!offered.includes(s.privacy_level)) {
    problems.push(`settings.privacy_level: this TikTok account offers ${offered.length ? offered.join(', ') : 'no privacy level'} (creator_info), not ${s.privacy_level}`);
  }
  if (s.comment && info.comment_disabled) problems.push('settings.comment: this TikTok account has comments turned off: set comment to false');
  if (video && s.duet && info.duet_disabled) problems.push('settings.duet: this TikTok account has duets turned off: set duet to false');
  if (video && s.stitch && info.stitch_disabled) problems.push('settings.stitch: this TikTok account has stitches turned off: set stitch to false');
  const max = info.max_video_post_duration_sec;
  if (video && typeof max === 'number' && video.duration != null && video.duration > max) {
    problems.push(`value.0.image.0: the video lasts ${Math.round(video.duration)} s, longer than the ${max} s this TikTok account may post (max_video_post_duration_sec)`);
  }
  if (problems.length > 0) throw new PlatformError('rejected', problems.join('; '), { platformCode: 'creator_info' });
}

function parsePending(token: string): PendingPublish {
  try {
    const t = JSON.parse(token) as PendingPublish;
    if (t.v === 1 && typeof t.publishId === 'string' && (t.kind === 'video' || t.kind === 'photo')) return t;
  } catch {
    // fall through
  }
  throw new PlatformError('rejected', 'Unreadable TikTok publish token');
}

const pending = (t: PendingPublish, pollAfterMs?: number): PublishResult => ({ status: 'pending', token: JSON.stringify(t), ...(pollAfterMs !== undefined ? { pollAfterMs } : {}) });
const missing = (): PublishResult => ({ status: 'published', id: MISSING, url: '' });

/**
 * The exact id of a published post. TikTok documents `publicaly_available_post_id` as int64, and
 * its ids (19 digits) are past what a JSON number holds exactly: parsed, the last digits are lost.
 * A string or a safe integer is taken as is; otherwise the account's recent videos (whose ids are
 * strings) are searched for the one that the rounded number stands for. Undefined: not listed
 * (yet); null: the grant may not list videos (no `video.list`), so it cannot be found.
 */
async function exactId(api: TiktokApi, raw: string | number): Promise<string | undefined | null> {
  if (typeof raw === 'string') return raw;
  if (Number.isSafeInteger(raw)) return String(raw);
  let cursor: number | undefined;
  for (let page = 0; page < 3; page++) {
    let list;
    try {
      list = await api.listVideos(LIST_FIELDS, { max_count: 20, ...(cursor !== undefined ? { cursor } : {}) });
    } catch (e) {
      // The post is published either way: a missing scope must not fail it.
      if (e instanceof PlatformError && e.kind === 'reconnect_required') return null;
      throw e;
    }
    const hit = (list.videos ?? []).find((v) => Number(v.id) === raw);
    if (hit) return hit.id;
    if (!list.has_more || list.cursor === undefined) return undefined;
    cursor = list.cursor;
  }
  return undefined;
}

export function tiktokPublishing(opts: { chunkBytes?: number } = {}) {
  /** Sends the next chunk of the video; a chunk that TikTok already holds is not sent again. */
  async function uploadNext(api: TiktokApi, t: PendingPublish, ctx: Ctx): Promise<PublishResult> {
    const up = t.upload!;
    const { first, last } = chunkRange(up.next, { chunkSize: up.chunkSize, count: up.chunks }, up.size);
    const file = await ctx.openMedia(up.media);
    const res = await api.putChunk(up.url, file.slice(first, last + 1, up.media.mimeType), { first, last, total: up.size }, up.media.mimeType);
    if (res.status < 200 || res.status >= 300) {
      // Refused: maybe because the chunk arrived on an earlier try whose answer was lost (a crash,
      // a timeout). TikTok's status says how many bytes it holds.
      const st = await api.status(t.publishId);
      if (st.status === 'FAILED') throw failed(st);
      const held = typeof st.uploaded_bytes === 'number' ? st.uploaded_bytes : 0;
      if (st.status === 'PROCESSING_UPLOAD' && held <= last) {
        throw tiktokError(res, ctx.clock.now()) ?? new PlatformError('transient', `TikTok answered HTTP ${res.status} to a video chunk`, { status: res.status });
      }
    }
    const next: PendingPublish = { ...t, upload: { ...up, next: up.next + 1 } };
    // The next chunk can go at once; after the last one TikTok processes the video.
    return next.upload!.next < up.chunks ? pending(next, 0) : pending({ ...next, upload: undefined });
  }

  function failed(st: PublishStatus): PlatformError {
    const reason = st.fail_reason || 'no reason given';
    return new PlatformError('rejected', `TikTok could not publish the post: ${reason}`, { platformCode: st.fail_reason });
  }

  /** Reads the task's status until TikTok is done with it. */
  async function poll(api: TiktokApi, t: PendingPublish, now: number): Promise<PublishResult> {
    const st = await api.status(t.publishId);
    switch (st.status) {
      case 'FAILED':
        throw failed(st);
      case 'SEND_TO_USER_INBOX':
        // In the creator's TikTok inbox: they finish the post in the app, so its id is not ours to know.
        return t.mode === 'UPLOAD' ? missing() : pending(t);
      case 'PUBLISH_COMPLETE': {
        const raw = st.publicaly_available_post_id?.[0];
        const id = raw === undefined ? undefined : await exactId(api, raw);
        if (id) return { status: 'published', id, url: tiktokPostUrl(t.username, id, t.kind) };
        // No public id: an inbox post, a private post (never gets one), moderation still running,
        // or an id this grant cannot look up.
        if (id === null || t.mode === 'UPLOAD' || t.privacy === 'SELF_ONLY') return missing();
        const since = t.idWaitSince ?? now;
        if (now - since >= ID_WAIT_MS || now - t.startedAt >= ID_WAIT_LATEST_MS) return missing();
        return pending({ ...t, idWaitSince: since });
      }
      default:
        // PROCESSING_UPLOAD, PROCESSING_DOWNLOAD
        return pending(t);
    }
  }

  async function publishVideo(api: TiktokApi, ctx: Ctx, video: PublishMedia, s: Settings, text: string, username: string): Promise<PublishResult> {
    const plan = planChunks(video.size, opts.chunkBytes);
    const source_info = { source: 'FILE_UPLOAD', video_size: video.size, chunk_size: plan.chunkSize, total_chunk_count: plan.count };
    const data =
      s.content_posting_method === 'UPLOAD'
        ? await api.initInboxVideo({ source_info })
        : await api.initVideo({
            post_info: {
              title: text,
              privacy_level: s.privacy_level,
              disable_duet: !s.duet,
              disable_comment: !s.comment,
              disable_stitch: !s.stitch,
              brand_content_toggle: s.brand_content_toggle,
              brand_organic_toggle: s.brand_organic_toggle,
              is_aigc: s.video_made_with_ai === true,
            },
            source_info,
          });
    if (!data.publish_id || !data.upload_url) throw new PlatformError('transient', 'TikTok gave no publish id or upload URL', { outcomeUnknown: true });
    // Nothing is uploaded here: the chunks go one per check, each resumable from this token.
    return pending(
      {
        v: 1,
        kind: 'video',
        mode: s.content_posting_method,
        publishId: data.publish_id,
        username,
        privacy: s.content_posting_method === 'DIRECT_POST' ? s.privacy_level : null,
        startedAt: ctx.clock.now(),
        upload: { url: data.upload_url, media: video, size: video.size, chunkSize: plan.chunkSize, chunks: plan.count, next: 0 },
      },
      0,
    );
  }

  async function publishPhotos(api: TiktokApi, ctx: Ctx, photos: PublishMedia[], s: Settings, text: string, username: string): Promise<PublishResult> {
    const direct = s.content_posting_method === 'DIRECT_POST';
    const data = await api.initContent({
      media_type: 'PHOTO',
      post_mode: direct ? 'DIRECT_POST' : 'MEDIA_UPLOAD',
      post_info: direct
        ? {
            title: s.title ?? '',
            description: text,
            privacy_level: s.privacy_level,
            disable_comment: !s.comment,
            auto_add_music: s.autoAddMusic === 'yes',
            brand_content_toggle: s.brand_content_toggle,
            brand_organic_toggle: s.brand_organic_toggle,
          }
        : { title: s.title ?? '', description: text },
      // TikTok fetches each picture from its public URL (PUBLIC_URL/media/…), which must be a
      // domain or URL prefix verified for the app.
      source_info: { source: 'PULL_FROM_URL', photo_cover_index: 0, photo_images: photos.map((m) => m.path) },
    });
    if (!data.publish_id) throw new PlatformError('transient', 'TikTok gave no publish id', { outcomeUnknown: true });
    return pending({ v: 1, kind: 'photo', mode: s.content_posting_method, publishId: data.publish_id, username, privacy: direct ? s.privacy_level : null, startedAt: ctx.clock.now() });
  }

  return {
    validate: validateTiktok,

    /**
     * Starts a TikTok post: reads creator_info (direct posts), checks the settings against it,
     * and initialises the task — a video (chunked FILE_UPLOAD, the chunks then go one per
     * `checkPublish`) or photos (PULL_FROM_URL). Always `pending`. NOT idempotent: a repeated
     * initialisation is a second task; a lost answer is reconciled by the publisher with
     * `findRecent` (a video task that was never uploaded to publishes nothing).
     */
    async publish(input: { item: PublishItem; settings: Record<string, unknown>; replyTo?: { id: string; rootId: string } }, ctx: Ctx): Promise<PublishResult> {
      if (input.replyTo) throw new PlatformError('unsupported', 'TikTok has no replies or comments in its posting API: publish thread items as posts of their own');
      const s = parseSettings(input.settings);
      const c = tiktokCreds(ctx);
      const api = tiktokApi(ctx, c.accessToken);
      const videos = input.item.media.filter((m) => m.type === 'video');
      const photos = input.item.media.filter((m) => m.type === 'image');
      if (videos.length + photos.length === 0) throw new PlatformError('rejected', 'TikTok posts need a video or pictures; text alone cannot be posted');
      if (videos.length > 1 || (videos.length === 1 && photos.length > 0)) throw new PlatformError('rejected', 'A TikTok post takes one video alone, or pictures only');
      const text = htmlToText(input.item.content);
      let username = c.username;
      if (s.content_posting_method === 'DIRECT_POST') {
        // TikTok asks that what the creator may do now be read before every direct post.
        const info = await api.creatorInfo();
        checkAgainstCreator(info, s, videos[0]);
        username = info.creator_username || username;
      }
      return videos[0] ? publishVideo(api, ctx, videos[0], s, text, username) : publishPhotos(api, ctx, photos, s, text, username);
    },

    /**
     * Goes on with a pending post: the next video chunk (one per call; a chunk whose answer was
     * lost is sent again, or skipped when TikTok's status shows it arrived — the initialisation is
     * never repeated), then the task's status until PUBLISH_COMPLETE (the public id and URL),
     * SEND_TO_USER_INBOX (inbox uploads: `missing`) or FAILED (`rejected` with TikTok's reason).
     * Idempotent: the same token may be checked any number of times.
     */
    async checkPublish(token: string, ctx: Ctx): Promise<PublishResult> {
      const t = parsePending(token);
      const api = tiktokApi(ctx, tiktokCreds(ctx).accessToken);
      if (t.upload && t.upload.next < t.upload.chunks) return uploadNext(api, t, ctx);
      return poll(api, t, ctx.clock.now());
    },

    /** The account's recent public posts, newest first (TikTok lists public posts only). */
    async findRecent(input: { since: Date; limit: number }, ctx: Ctx): Promise<{ id: string; url: string; content: string; createdAt: string }[]> {
      const c = tiktokCreds(ctx);
      const api = tiktokApi(ctx, c.accessToken);
      const out: { id: string; url: string; content: string; createdAt: string }[] = [];
      let cursor: number | undefined;
      for (;;) {
        const page = await api.listVideos(LIST_FIELDS, { max_count: Math.min(20, Math.max(1, input.limit - out.length)), ...(cursor !== undefined ? { cursor } : {}) });
        const videos = page.videos ?? [];
        let older = false;
        for (const v of videos) {
          const created = (v.create_time ?? 0) * 1000;
          if (created < input.since.getTime()) {
            older = true;
            continue;
          }
          const url = v.share_url ? v.share_url.split('?')[0]! : tiktokPostUrl(c.username, v.id);
          out.push({ id: v.id, url, content: v.video_description || v.title || '', createdAt: new Date(created).toISOString() });
        }
        // Newest first: once one is older than `since`, so is the rest.
        if (older || !page.has_more || page.cursor === undefined || out.length >= input.limit || videos.length === 0) break;
        cursor = page.cursor;
      }
      return out.slice(0, input.limit);
    },
  };
}

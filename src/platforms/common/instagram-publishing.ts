import { htmlToText } from './html.js';
import { percentageChange } from './figures.js';
import { graphClient, graphRecent, graphTime, parseToken, unixSeconds, INSTAGRAM_WWW, type GraphClient } from './meta-client.js';
import {
  PlatformError,
  type AnalyticsSeries,
  type OperationContext,
  type PostDraft,
  type PublishItem,
  type PublishMedia,
  type PublishResult,
  type ValidationIssue,
} from '../platform.js';
import { instagramError } from './instagram-errors.js';

/**
 * Instagram content publishing, shared by `instagram` (Facebook Login, graph.facebook.com, the
 * Page token) and `instagram-standalone` (Instagram Login, graph.instagram.com): media containers
 * (a picture, a reel, a carousel of up to 10 items, a story) created from the media's PUBLIC URLs,
 * which Instagram pulls; polled (`status_code`) until FINISHED; published with `media_publish`;
 * the permalink read back. Thread items become comments on the published media.
 */

type Ctx = OperationContext;

/** How an adapter reaches its Instagram account. */
export interface InstagramAccess {
  /** graph.facebook.com (Facebook Login) or graph.instagram.com (Instagram Login) */
  origin: string;
  token: string;
  igUserId: string;
  username: string;
  /** licensed audio on reels (only the Facebook Login API has it) */
  audio: boolean;
}

/**
 * What `checkPublish` needs: the account, the containers made (carousel items first, the
 * container to publish once it exists), and what identifies the published media if a
 * `media_publish` got through but its answer was lost (the caption, the kind, when it started).
 */
interface ContainerToken {
  v: 1;
  kind: 'ig';
  igUserId: string;
  product: 'FEED' | 'REELS' | 'STORY';
  caption: string;
  /** carousel items made: the carousel is made once all are FINISHED */
  children: string[];
  /** carousel items still to make (their container bodies, in order) */
  items?: Record<string, unknown>[];
  /** what the carousel container is made with */
  carousel?: Record<string, unknown>;
  /** the container to publish (null until the carousel is made) */
  container: string | null;
  /** the published media, once `media_publish` answered (its permalink still to read) */
  mediaId?: string;
  /** ISO time the first container was made: the published media is not older */
  since: string;
  /** PUBLISHED containers whose media could not be found yet */
  lookups?: number;
}

interface ContainerStatus {
  status_code?: 'IN_PROGRESS' | 'FINISHED' | 'PUBLISHED' | 'ERROR' | 'EXPIRED';
  status?: string;
}

interface MediaView {
  id: string;
  caption?: string;
  media_type?: string;
  media_product_type?: string;
  permalink?: string;
  shortcode?: string;
  timestamp?: string;
}

/** A comment as `GET /{ig-media-id}/comments` gives it: `username` is its author's. */
interface CommentView {
  id: string;
  text?: string;
  timestamp?: string;
  username?: string;
}

/** Instagram gives at most 50 comments a page. */
const COMMENT_PAGE = 50;
/** Pages of comments read at most: a media flooded with comments since the attempt is not read to its end. */
const COMMENT_PAGES = 20;

/** Lookups of a PUBLISHED container's media before settling for the profile URL. */
const MAX_LOOKUPS = 5;
const DAY = 86_400_000;
const STORY_VIDEO_SECONDS = 60;
const CAROUSEL_VIDEO_SECONDS = 60;
const MAX_HASHTAGS = 30;
const MAX_MENTIONS = 20;

const profileUrl = (username: string) => `${INSTAGRAM_WWW}/${username}/`;

function mediaUrl(m: MediaView, username: string): string {
  if (m.permalink) return m.permalink;
  if (m.media_product_type === 'STORY') return `${INSTAGRAM_WWW}/stories/${username}/`;
  if (m.shortcode) return `${INSTAGRAM_WWW}/${m.media_product_type === 'REELS' ? 'reel' : 'p'}/${m.shortcode}/`;
  return profileUrl(username);
}

/** A Graph time as ISO (the epoch when Instagram gives none). */
const isoTime = (time: string | undefined) => new Date(Number.isNaN(graphTime(time)) ? 0 : graphTime(time)).toISOString();

/** What a thread item comments on: the thread's first item (`id` when no root is given). */
const commentTarget = (replyTo: { id: string; rootId: string }) => replyTo.rootId || replyTo.id;

function collaborators(settings: Record<string, unknown>): string[] {
  const list = Array.isArray(settings.collaborators) ? (settings.collaborators as { label?: unknown }[]) : [];
  return list.map((c) => (typeof c.label === 'string' ? c.label.trim().replace(/^@/, '') : '')).filter(Boolean);
}

function isStory(settings: Record<string, unknown>) {
  return settings.post_type === 'story';
}

/** Width ÷ height of feed pictures Instagram takes. */
const FEED_ASPECT = { min: 4 / 5, max: 1.91 };

/** The rules the metadata cannot express (post type, trial reels, audio, the feed pictures' shape). */
export function validateInstagram(post: PostDraft, opts: { audio: boolean }): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const first = post.items[0];
  if (!first) return issues;
  const s = post.settings;
  const videos = first.media.filter((m) => m.type === 'video');
  const story = isStory(s);
  if (story) {
    if (first.media.length !== 1) issues.push({ path: 'value.0.image', code: 'story_media', message: 'An Instagram story is one picture or one video' });
    if (post.items.length > 1) issues.push({ path: 'value.1.content', code: 'story_comments', message: 'Instagram stories cannot be commented on: remove the thread items' });
    if (videos.some((v) => (v.duration ?? 0) > STORY_VIDEO_SECONDS)) issues.push({ path: 'value.0.image', code: 'story_duration', message: `An Instagram story video lasts at most ${STORY_VIDEO_SECONDS} seconds` });
  }
  const singleVideo = !story && first.media.length === 1 && videos.length === 1;
  if (s.is_trial_reel === true && !singleVideo) issues.push({ path: 'settings.is_trial_reel', code: 'trial_reel', message: 'A trial reel is a post of exactly one video' });
  if (s.audio !== undefined && s.audio !== null) {
    if (!opts.audio) issues.push({ path: 'settings.audio', code: 'audio_unsupported', message: 'Licensed audio is only available to Instagram accounts connected through Facebook' });
    else if (!singleVideo) issues.push({ path: 'settings.audio', code: 'audio_reel_only', message: 'Licensed audio goes on a reel: a post of exactly one video' });
  }
  const collab = collaborators(s);
  if (collab.length > 3) issues.push({ path: 'settings.collaborators', code: 'collaborators_max', message: 'An Instagram post takes at most 3 collaborators' });
  if (collab.length > 0 && story) issues.push({ path: 'settings.collaborators', code: 'collaborators_story', message: 'Instagram stories take no collaborators' });
  first.media.forEach((m, i) => {
    // Feed pictures (single or carousel) must be 4:5 to 1.91:1, which only cropping could fix;
    // stories take any shape (9:16 fills the screen).
    if (m.type === 'image' && !story && m.width && m.height) {
      const ratio = m.width / m.height;
      if (ratio < FEED_ASPECT.min - 0.005 || ratio > FEED_ASPECT.max + 0.005) {
        issues.push({
          path: `value.0.image.${i}`,
          code: 'media_aspect_ratio',
          message: `Instagram feed pictures are 4:5 to 1.91:1 (this one is ${m.width}×${m.height}): crop it, or post it as a story`,
        });
      }
    }
    if (m.type === 'video' && !story && first.media.length > 1 && (m.duration ?? 0) > CAROUSEL_VIDEO_SECONDS) {
      issues.push({ path: `value.0.image.${i}`, code: 'carousel_video_duration', message: `A video in an Instagram carousel lasts at most ${CAROUSEL_VIDEO_SECONDS} seconds` });
    }
  });
  const text = htmlToText(first.content);
  if ((text.match(/#[\p{L}\p{N}_]+/gu) ?? []).length > MAX_HASHTAGS) issues.push({ path: 'value.0.content', code: 'hashtags', message: `An Instagram caption takes at most ${MAX_HASHTAGS} hashtags` });
  if ((text.match(/(^|\s)@[\w.]+/g) ?? []).length > MAX_MENTIONS) issues.push({ path: 'value.0.content', code: 'mentions', message: `An Instagram caption takes at most ${MAX_MENTIONS} mentions` });
  return issues;
}

/**
 * The publishing half of both Instagram adapters. `access(ctx)` says where and as whom; `classify`
 * is the platform's error mapper.
 */
export function instagramPublishing(opts: { displayName: string; access: (ctx: Ctx) => InstagramAccess }) {
  const { displayName } = opts;
  const api = (ctx: Ctx, a: InstagramAccess): GraphClient => graphClient(ctx, { origin: a.origin, token: a.token, classify: instagramError });

  /** Pending with the token; after a refusal worth retrying, when Meta says. */
  const pendingOf = (t: ContainerToken, pollAfterMs?: number): PublishResult => ({ status: 'pending', token: JSON.stringify(t), ...(pollAfterMs !== undefined ? { pollAfterMs } : {}) });

  async function createContainer(client: GraphClient, a: InstagramAccess, body: Record<string, unknown>): Promise<string> {
    const res = await client.post<{ id?: string }>(`${a.igUserId}/media`, body);
    if (!res.id) throw new PlatformError('transient', 'Instagram made no media container');
    return res.id;
  }

  function itemBody(m: PublishMedia, settings: Record<string, unknown>, caption: string, a: InstagramAccess, carouselItem: boolean): Record<string, unknown> {
    const story = isStory(settings);
    const body: Record<string, unknown> = m.type === 'video' ? { video_url: m.path } : { image_url: m.path };
    if (carouselItem) {
      body.is_carousel_item = true;
      if (m.type === 'video') body.media_type = 'VIDEO';
    } else if (story) {
      body.media_type = 'STORIES';
    } else if (m.type === 'video') {
      // Since 2023 every feed video is a reel.
      body.media_type = 'REELS';
      if (settings.is_trial_reel === true) body.trial_params = { graduation_strategy: settings.graduation_strategy === 'SS_PERFORMANCE' ? 'SS_PERFORMANCE' : 'MANUAL' };
      const audio = settings.audio as { id?: string; audio_volume?: number; video_volume?: number } | undefined;
      if (audio?.id && a.audio) {
        body.audio_configuration = { audio_id: audio.id, ...(audio.audio_volume !== undefined ? { audio_volume: audio.audio_volume } : {}), ...(audio.video_volume !== undefined ? { video_volume: audio.video_volume } : {}) };
      }
    }
    if (m.type === 'image' && m.alt && !story) body.alt_text = m.alt.slice(0, 1000);
    if (!carouselItem && !story) {
      if (caption) body.caption = caption;
      const collab = collaborators(settings);
      if (collab.length) body.collaborators = collab;
    }
    return body;
  }

  /** The media a PUBLISHED container became, when its `media_publish` answer was lost. */
  async function findPublished(client: GraphClient, a: InstagramAccess, t: ContainerToken): Promise<MediaView | undefined> {
    const since = Date.parse(t.since) - 60_000;
    const edge = t.product === 'STORY' ? 'stories' : 'media';
    const res = await client.get<{ data?: MediaView[] }>(`${a.igUserId}/${edge}`, { fields: 'id,caption,media_type,media_product_type,permalink,shortcode,timestamp', limit: 50 });
    const candidates = (res.data ?? []).filter((m) => {
      const at = m.timestamp ? Date.parse(m.timestamp.replace(/\+0000$/, 'Z')) : NaN;
      return (Number.isNaN(at) || at >= since) && (t.product === 'STORY' || (m.caption ?? '') === t.caption);
    });
    // The oldest match: a later one with the same caption is a later post.
    return candidates.sort((x, y) => (x.timestamp ?? '').localeCompare(y.timestamp ?? ''))[0];
  }

  /**
   * The account's own comments on `target` since `since`, newest first, named as `publish` names
   * them: what an interrupted thread item may have become. Instagram lists a media's top-level
   * comments newest first, 50 a page, and cannot filter them by time, so pages are read until an
   * older one. The account's are those whose `username` is the media's own (the thread's first
   * item is the account's media; read now, it is right even after the account was renamed).
   */
  async function ownComments(client: GraphClient, a: InstagramAccess, target: string, since: Date, limit: number) {
    const root = await client.get<MediaView & { username?: string }>(target, { fields: 'id,permalink,shortcode,media_product_type,username' });
    const username = root.username ?? a.username;
    const url = mediaUrl(root, a.username);
    const mine = await graphRecent<CommentView>(client, `${target}/comments`, { fields: 'id,text,timestamp,username', limit: COMMENT_PAGE }, {
      since: since.getTime(),
      at: (c) => graphTime(c.timestamp),
      keep: (c) => c.username === username,
      max: limit,
      maxPages: COMMENT_PAGES,
    });
    return mine.map((c) => ({ id: c.id, url, content: c.text ?? '', createdAt: isoTime(c.timestamp) }));
  }

  async function permalinkOf(client: GraphClient, a: InstagramAccess, mediaId: string): Promise<PublishResult> {
    const m = await client.get<MediaView>(mediaId, { fields: 'id,permalink,shortcode,media_product_type' });
    return { status: 'published', id: mediaId, url: mediaUrl(m, a.username) };
  }

  /**
   * One pass over the containers, from what Instagram reports: items processed → the carousel
   * made; the container FINISHED → `media_publish`; PUBLISHED → the media found instead of
   * publishing again. `eager` (the first call, in `publish`) goes on after making the carousel;
   * a check answers at once after making anything, so the new id is stored before the next step.
   */
  async function advance(ctx: Ctx, a: InstagramAccess, t: ContainerToken, eager: boolean): Promise<PublishResult> {
    const client = api(ctx, a);
    if (t.mediaId) return permalinkOf(client, a, t.mediaId);
    while (t.items?.length) {
      t.children.push(await createContainer(client, a, t.items[0]!));
      t.items.shift();
      if (!eager) return pendingOf(t, 0);
    }
    if (t.container === null) {
      for (const id of t.children) {
        const s = await client.get<ContainerStatus>(id, { fields: 'status_code,status' });
        if (s.status_code === 'ERROR' || s.status_code === 'EXPIRED') throw processingError(s);
        if (s.status_code !== 'FINISHED') return pendingOf(t);
      }
      t.container = await createContainer(client, a, { ...t.carousel, media_type: 'CAROUSEL', children: t.children.join(',') });
      if (!eager) return pendingOf(t, 0);
    }
    const s = await client.get<ContainerStatus>(t.container, { fields: 'status_code,status' });
    switch (s.status_code) {
      case 'ERROR':
      case 'EXPIRED':
        throw processingError(s);
      case 'PUBLISHED': {
        const found = await findPublished(client, a, t);
        if (found) return { status: 'published', id: found.id, url: mediaUrl(found, a.username) };
        t.lookups = (t.lookups ?? 0) + 1;
        if (t.lookups >= MAX_LOOKUPS) return { status: 'published', id: t.container, url: profileUrl(a.username) };
        return pendingOf(t);
      }
      case 'FINISHED': {
        let res: { id?: string };
        try {
          res = await client.post<{ id?: string }>(`${a.igUserId}/media_publish`, { creation_id: t.container });
        } catch (e) {
          // Not ready after all ("Media ID is not available"): look again later.
          if (e instanceof PlatformError && e.details.platformCode === '9007/2207027') return pendingOf(t);
          throw e;
        }
        if (!res.id) return pendingOf(t);
        t.mediaId = res.id;
        try {
          return await permalinkOf(client, a, res.id);
        } catch (e) {
          // Published: only the link is missing, and the next check reads it.
          if (e instanceof PlatformError && (e.kind === 'transient' || e.kind === 'rate_limited')) return pendingOf(t, 0);
          throw e;
        }
      }
      default:
        return pendingOf(t);
    }
  }

  function processingError(s: ContainerStatus): PlatformError {
    const reason = (s.status ?? '').replace(/^Error:\s*/, '') || s.status_code || 'unknown error';
    return new PlatformError('rejected', s.status_code === 'EXPIRED' ? 'The Instagram media container expired before it was published' : `Instagram could not process the media: ${reason}`, {
      platformCode: s.status_code,
    });
  }

  return {
    /**
     * Publishes one item: the containers are made and, when Instagram has already processed them
     * (pictures usually are), published at once; otherwise `pending`, and `checkPublish` goes on.
     * Once a container exists, a failure worth retrying answers `pending` with the token rather
     * than an error, so no second container is ever made for the same post. Thread items are
     * comments on the published media. NOT idempotent before the first container exists.
     */
    async publish(input: { item: PublishItem; settings: Record<string, unknown>; replyTo?: { id: string; rootId: string } }, ctx: Ctx): Promise<PublishResult> {
      const a = opts.access(ctx);
      const client = api(ctx, a);
      const { item, settings, replyTo } = input;
      const caption = htmlToText(item.content);
      if (replyTo) {
        if (item.media.length > 0) throw new PlatformError('rejected', 'Instagram comments are text only');
        const target = commentTarget(replyTo);
        const res = await client.post<{ id?: string }>(`${target}/comments`, { message: caption });
        if (!res.id) throw new PlatformError('transient', 'Instagram accepted the comment without naming it', { outcomeUnknown: true });
        const root = await client.get<MediaView>(target, { fields: 'id,permalink,shortcode,media_product_type' }).catch(() => ({ id: target }));
        return { status: 'published', id: res.id, url: mediaUrl(root, a.username) };
      }
      if (item.media.length === 0) throw new PlatformError('rejected', 'An Instagram post needs at least one picture or video');
      const story = isStory(settings);
      if (story && item.media.length > 1) throw new PlatformError('rejected', 'An Instagram story is one picture or one video');
      const t: ContainerToken = {
        v: 1,
        kind: 'ig',
        igUserId: a.igUserId,
        product: story ? 'STORY' : item.media.length === 1 && item.media[0]!.type === 'video' ? 'REELS' : 'FEED',
        caption: story ? '' : caption,
        children: [],
        container: null,
        since: new Date(ctx.clock.now()).toISOString(),
      };
      if (item.media.length === 1) {
        t.container = await createContainer(client, a, itemBody(item.media[0]!, settings, caption, a, false));
      } else {
        t.items = item.media.map((m) => itemBody(m, settings, caption, a, true));
        const collab = collaborators(settings);
        t.carousel = { ...(caption ? { caption } : {}), ...(collab.length ? { collaborators: collab } : {}) };
      }
      // A story is published by the check, which first looks whether its container is already
      // PUBLISHED: stories are not among the media `findRecent` sees, so a crash during an eager
      // `media_publish` could not be reconciled.
      if (story) return pendingOf(t, 0);
      try {
        return await advance(ctx, a, t, true);
      } catch (e) {
        return orPending(e, t);
      }
    },

    /** Goes on from what Instagram reports; never makes a container or publishes twice. */
    async checkPublish(token: string, ctx: Ctx): Promise<PublishResult> {
      const t = parseToken<ContainerToken>(token, ['ig'], displayName);
      const a = opts.access(ctx);
      if (t.igUserId !== a.igUserId) throw new PlatformError('rejected', `This ${displayName} publish belongs to another account`);
      return advance(ctx, a, t, false);
    },

    /**
     * The account's recent feed media (captions as shown), newest first; with `replyTo`, its
     * comments on the thread's first item instead (a thread item only ever becomes a comment
     * there, and a media with the same caption must not be taken for it).
     */
    async findRecent(input: { since: Date; limit: number; replyTo?: { id: string; rootId: string } }, ctx: Ctx) {
      const a = opts.access(ctx);
      if (input.replyTo) return ownComments(api(ctx, a), a, commentTarget(input.replyTo), input.since, Math.max(1, input.limit));
      const res = await api(ctx, a).get<{ data?: MediaView[] }>(`${a.igUserId}/media`, {
        fields: 'id,caption,media_product_type,permalink,shortcode,timestamp',
        since: unixSeconds(input.since.getTime()),
        limit: Math.min(100, Math.max(1, input.limit)),
      });
      return (res.data ?? [])
        .map((m) => ({ id: m.id, url: mediaUrl(m, a.username), content: m.caption ?? '', createdAt: m.timestamp ? new Date(m.timestamp.replace(/\+0000$/, 'Z')).toISOString() : new Date(0).toISOString() }))
        .filter((m) => Date.parse(m.createdAt) >= input.since.getTime())
        .sort((x, y) => y.createdAt.localeCompare(x.createdAt))
        .slice(0, input.limit);
    },

    /** Daily reach and new followers (Instagram keeps 30 days per call), and the period's totals. */
    async analytics(days: number, ctx: Ctx): Promise<AnalyticsSeries[]> {
      const a = opts.access(ctx);
      const client = api(ctx, a);
      const until = Math.floor(ctx.clock.now() / DAY) * DAY;
      const since = until - Math.min(30, Math.max(1, Math.floor(days))) * DAY;
      const range = { since: unixSeconds(since), until: unixSeconds(until) };
      const daily = await client.get<{ data?: { name: string; values?: { value?: number; end_time?: string }[] }[] }>(`${a.igUserId}/insights`, { metric: 'reach,follower_count', period: 'day', ...range });
      const series: AnalyticsSeries[] = ([['reach', 'Reach'], ['follower_count', 'New followers']] as const).map(([metric, label]) => {
        const values = daily.data?.find((d) => d.name === metric)?.values ?? [];
        const data = values.map((v) => ({ total: Number(v.value ?? 0), date: new Date(Date.parse((v.end_time ?? '').replace(/\+0000$/, 'Z')) - DAY).toISOString().slice(0, 10) }));
        return { label, percentageChange: percentageChange(data), data };
      });
      const totals = await client.get<{ data?: { name: string; total_value?: { value?: number } }[] }>(`${a.igUserId}/insights`, {
        metric: 'views,likes,comments,shares,saves',
        metric_type: 'total_value',
        period: 'day',
        ...range,
      });
      const date = new Date(until - DAY).toISOString().slice(0, 10);
      const labels: Record<string, string> = { views: 'Views', likes: 'Likes', comments: 'Comments', shares: 'Shares', saves: 'Saves' };
      for (const [metric, label] of Object.entries(labels)) {
        series.push({ label, percentageChange: 0, data: [{ total: Number(totals.data?.find((d) => d.name === metric)?.total_value?.value ?? 0), date }] });
      }
      return series;
    },

    /** Lifetime figures of one published media. */
    async postAnalytics(mediaId: string, _days: number, ctx: Ctx): Promise<AnalyticsSeries[]> {
      const a = opts.access(ctx);
      const metrics: [string, string][] = [
        ['views', 'Views'],
        ['reach', 'Reach'],
        ['likes', 'Likes'],
        ['comments', 'Comments'],
        ['shares', 'Shares'],
        ['saved', 'Saves'],
      ];
      const res = await api(ctx, a).get<{ data?: { name: string; values?: { value?: number }[]; total_value?: { value?: number } }[] }>(`${mediaId}/insights`, { metric: metrics.map(([m]) => m).join(',') });
      const date = new Date(ctx.clock.now()).toISOString().slice(0, 10);
      return metrics.map(([metric, label]) => {
        const d = res.data?.find((x) => x.name === metric);
        return { label, percentageChange: 0, data: [{ total: Number(d?.values?.[0]?.value ?? d?.total_value?.value ?? 0), date }] };
      });
    },
  };
}

/** Once a container exists, a failure worth retrying leaves the post pending on its token: never a second container. */
function orPending(e: unknown, t: ContainerToken): PublishResult {
  const made = t.container !== null || t.children.length > 0;
  if (made && e instanceof PlatformError && (e.kind === 'transient' || e.kind === 'rate_limited') && !e.details.outcomeUnknown) {
    return { status: 'pending', token: JSON.stringify(t), ...(e.details.retryAfterSeconds ? { pollAfterMs: e.details.retryAfterSeconds * 1000 } : {}) };
  }
  throw e;
}

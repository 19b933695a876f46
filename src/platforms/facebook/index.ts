import { z } from 'zod';
import { htmlToText } from '../common/html.js';
import { readCredentials } from '../common/credentials.js';
import { percentageChange } from '../common/figures.js';
import { parseToken } from '../common/meta-client.js';
import { facebookAuthorizeUrl, facebookLogin, managedPages, requireMetaApp, type ManagedPage } from '../common/meta-login.js';
import type { OAuthApp } from '../common/oauth2.js';
import { PlatformError, type AnalyticsSeries, type ConnectedAccount, type Credentials, type PlatformAdapter, type PostDraft, type PublishResult, type ValidationIssue } from '../platform.js';
import {
  advancePhotoStory,
  advanceVideo,
  comment,
  commentTarget,
  createFeedPost,
  DEFAULT_UPLOAD_CHUNK,
  pageApi,
  pageComments,
  pageInsights,
  PAGE_METRICS,
  postInsights,
  POST_METRICS,
  recentPagePosts,
  startVideo,
  TOKEN_KINDS,
  total,
  uploadPhoto,
  type FacebookCredentials,
  type FacebookToken,
  type PhotoStoryToken,
} from './client.js';
import { facebookMetadata } from './metadata.js';

const DAY = 86_400_000;
/** Text background presets only apply to short text posts. */
const PRESET_MAX_CHARS = 130;

/** What a Facebook channel stores, read with the fallbacks older channels need. */
const FacebookCredentialsSchema = z
  .object({
    pageId: z.string().min(1),
    pageToken: z.string().min(1),
    userToken: z.string().min(1),
    pageName: z.string().nullish(),
    userId: z.string().nullish(),
    userTokenExpiresAt: z.string().nullish(),
  })
  .transform(
    (c): FacebookCredentials => ({ pageId: c.pageId, pageToken: c.pageToken, pageName: c.pageName ?? c.pageId, userToken: c.userToken, userId: c.userId ?? '', userTokenExpiresAt: c.userTokenExpiresAt ?? null }),
  );

const creds = (ctx: { credentials: Credentials }): FacebookCredentials => readCredentials(ctx, FacebookCredentialsSchema, 'Facebook');

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

/**
 * Creates the Facebook Page adapter. Facebook Login gives a 60-day user token (no refresh token);
 * connecting lists the Pages the user can publish on and connects the first, the `pages` tool
 * lists them all and `selectAccount` switches to another. The channel posts with the Page token,
 * which does not expire.
 */
export function createFacebookAdapter(config: { app?: OAuthApp; uploadChunkBytes?: number } = {}): PlatformAdapter {
  const displayName = facebookMetadata.displayName;
  const chunkBytes = config.uploadChunkBytes ?? DEFAULT_UPLOAD_CHUNK;

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
      return createFeedPost(api, c.pageId, body);
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
      return recentPagePosts(pageApi(ctx, c), c.pageId, input.since, input.limit);
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
      const res = await pageInsights(pageApi(ctx, c), c.pageId, since, until);
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
      const res = await postInsights(pageApi(ctx, c), postId);
      const date = new Date(ctx.clock.now()).toISOString().slice(0, 10);
      return POST_METRICS.map(([metric, label]) => ({
        label,
        percentageChange: 0,
        data: [{ total: total(res.data?.find((d) => d.name === metric)?.values?.[0]?.value), date }],
      }));
    },
  };
}

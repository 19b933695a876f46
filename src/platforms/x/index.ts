import { z } from 'zod';
import { readCredentials, storedText, storedTextOrNull } from '../common/credentials.js';
import { buildAuthorizeUrl, exchangeCode, refreshTokens, type OAuthApp } from '../common/oauth2.js';
import { htmlToText } from '../common/html.js';
import {
  PlatformError,
  type AnalyticsSeries,
  type ConnectedAccount,
  type Credentials,
  type OperationContext,
  type PlatformAdapter,
  type PostDraft,
  type PublishResult,
  type ValidationIssue,
} from '../platform.js';
import {
  createTweet,
  getMe,
  mediaStatus,
  processingError,
  timeline,
  tweetMetrics,
  uploadMedia,
  userMetrics,
  xPostUrl,
  xSeconds,
  type TweetBody,
  type UploadedMedia,
} from './client.js';
import { xMetadata } from './metadata.js';

/** What a connected X channel stores (sealed by the caller). */
export interface XCredentials {
  accessToken: string;
  /** present because `offline.access` is requested; X rotates it on every refresh */
  refreshToken: string | null;
  userId: string;
  username: string;
  /** a verified (Premium) account may post longer texts; kept for the length rule */
  verified: boolean;
}

/**
 * What `checkPublish` needs to finish a post whose video or GIF X is still processing: the post
 * as it will be sent (without its media ids) and the media to wait for. `since` bounds the look
 * for a post already made from this token (see `checkPublish`).
 */
interface PendingToken {
  v: 1;
  body: TweetBody;
  media: { id: string; key: string }[];
  since: string;
}

type Ctx = OperationContext;

const LOOKBACK_MARGIN_MS = 5 * 60_000;

const StoredXCredentials = z.object({ accessToken: storedText, refreshToken: storedTextOrNull, userId: storedText, username: storedText, verified: z.unknown().transform((v) => v === true) });
const creds = (ctx: { credentials: Credentials }): XCredentials => readCredentials(ctx, StoredXCredentials, 'X');

/** `https://x.com/i/communities/1234` → `1234` (the settings schema has checked the shape). */
function communityId(value: unknown): string | undefined {
  return typeof value === 'string' ? /\/communities\/(\d+)/.exec(value)?.[1] : undefined;
}

/**
 * The post body from the content and the X settings. Who may reply and the community belong to
 * the conversation, so only its first post carries them; the AI and partnership labels describe
 * the content, so every post of a thread carries them.
 */
export function tweetBody(content: string, settings: Record<string, unknown>, replyTo?: { id: string }): TweetBody {
  const body: TweetBody = { text: htmlToText(content) };
  if (replyTo) {
    body.reply = { in_reply_to_tweet_id: replyTo.id };
  } else {
    const who = settings.who_can_reply_post;
    if (typeof who === 'string' && who !== 'everyone') body.reply_settings = who;
    const community = communityId(settings.community);
    if (community) body.community_id = community;
  }
  if (settings.made_with_ai === true) body.made_with_ai = true;
  if (settings.paid_partnership === true) body.paid_partnership = true;
  return body;
}

function series(now: number, figures: [label: string, total: number | undefined][]): AnalyticsSeries[] {
  const date = new Date(now).toISOString().slice(0, 10);
  return figures.map(([label, total]) => ({ label, percentageChange: 0, data: [{ total: total ?? 0, date }] }));
}

function parseToken(token: string): PendingToken {
  try {
    const t = JSON.parse(token) as PendingToken;
    if (t.v === 1 && typeof t.body?.text === 'string' && Array.isArray(t.media) && typeof t.since === 'string') return t;
  } catch {
    // fall through
  }
  throw new PlatformError('rejected', 'Unreadable X publish token');
}

/** Creates the X adapter: OAuth 2.0 with PKCE (confidential client), posts through API v2. */
export function createXAdapter(config: { app?: Partial<OAuthApp> }): PlatformAdapter {
  function app(): OAuthApp {
    const a = config.app;
    if (!a?.clientId || !a.clientSecret) throw new PlatformError('unsupported', 'X is not configured on this server: set X_CLIENT_ID and X_CLIENT_SECRET');
    return { clientId: a.clientId, clientSecret: a.clientSecret };
  }

  async function post(ctx: Ctx, c: XCredentials, body: TweetBody): Promise<PublishResult> {
    const tweet = await createTweet(ctx, c.accessToken, body);
    return { status: 'published', id: tweet.id, url: xPostUrl(c.username, tweet.id) };
  }

  /** Media still processing → pending; failed → rejected; all ready → the post is made. */
  async function finish(ctx: Ctx, c: XCredentials, body: TweetBody, media: UploadedMedia[], since: number): Promise<PublishResult> {
    const failed = media.find((m) => m.state === 'failed');
    if (failed) throw new PlatformError('rejected', failed.error ?? 'X could not process the media');
    if (media.some((m) => m.state !== 'succeeded')) {
      const token: PendingToken = { v: 1, body, media: media.map((m) => ({ id: m.id, key: m.key })), since: xSeconds(since) };
      return { status: 'pending', token: JSON.stringify(token) };
    }
    return post(ctx, c, media.length > 0 ? { ...body, media: { media_ids: media.map((m) => m.id) } } : body);
  }

  return {
    metadata: xMetadata,

    async beginConnect(input) {
      return { url: buildAuthorizeUrl(xMetadata.oauth!, { clientId: app().clientId, redirectUri: input.redirectUri, state: input.state, codeChallenge: input.codeChallenge }) };
    },

    async completeConnect(input, ctx): Promise<ConnectedAccount> {
      const tokens = await exchangeCode(ctx.http, {
        tokenUrl: xMetadata.oauth!.tokenUrl,
        app: app(),
        code: input.code,
        redirectUri: input.redirectUri,
        codeVerifier: input.codeVerifier,
        clientAuth: 'basic',
        now: ctx.clock.now(),
      });
      const me = await getMe(ctx, tokens.accessToken);
      const credentials: XCredentials = {
        accessToken: tokens.accessToken,
        refreshToken: tokens.refreshToken,
        userId: me.id,
        username: me.username,
        verified: me.verified === true,
      };
      return {
        internalId: me.id,
        name: me.name || me.username,
        profile: me.username,
        picture: me.profile_image_url ?? null,
        credentials: { ...credentials },
        expiresAt: tokens.expiresAt,
      };
    },

    /**
     * X rotates the refresh token: the old one stops working as soon as the new pair is issued,
     * so the caller must store the answer before anything else. X refuses a spent or revoked
     * refresh token with 400 `invalid_request` ("Value passed for the token was invalid."),
     * not `invalid_grant`: that too means the grant is gone.
     */
    async refresh(ctx) {
      const c = creds(ctx);
      if (!c.refreshToken) throw new PlatformError('reconnect_required', 'This X channel has no refresh token: reconnect it');
      try {
        const tokens = await refreshTokens(ctx.http, { tokenUrl: xMetadata.oauth!.tokenUrl, app: app(), refreshToken: c.refreshToken, clientAuth: 'basic', now: ctx.clock.now() });
        return { credentials: { ...c, accessToken: tokens.accessToken, refreshToken: tokens.refreshToken } satisfies XCredentials, expiresAt: tokens.expiresAt };
      } catch (e) {
        if (e instanceof PlatformError && e.kind === 'rejected' && e.details.status === 400) {
          throw new PlatformError('reconnect_required', e.message, { ...e.details, platformCode: 'invalid_request' });
        }
        throw e;
      }
    },

    validate(post: PostDraft): ValidationIssue[] {
      const issues: ValidationIssue[] = [];
      if (post.settings.post_type === 'article') {
        issues.push({
          path: 'settings.post_type',
          code: 'unsupported',
          message: 'X articles cannot be published by this version yet: choose "post"',
        });
      }
      post.items.forEach((item, i) => {
        const gifs = item.media.filter((m) => m.mimeType === 'image/gif').length;
        if (gifs > 0 && item.media.length > 1) {
          issues.push({ path: `value.${i}.image`, code: 'gif_alone', message: 'An animated GIF must be the only media of an X post' });
        }
        if (item.media.length === 0 && htmlToText(item.content) === '') {
          issues.push({ path: `value.${i}.content`, code: 'required', message: 'An X post needs text or media' });
        }
      });
      return issues;
    },

    /**
     * Uploads the media, then creates the post. Not idempotent (X has no idempotency key; it
     * does refuse the same text twice in a row as duplicate content). Failures during the upload
     * happen before any post exists and are always safe to retry. When X is still processing a
     * video or GIF, answers `pending` at once rather than waiting here: `checkPublish` polls the
     * processing state and makes the post once every media has succeeded.
     */
    async publish({ item, settings, replyTo }, ctx): Promise<PublishResult> {
      const c = creds(ctx);
      const since = ctx.clock.now();
      const body = tweetBody(item.content, settings, replyTo);
      const media: UploadedMedia[] = [];
      for (const m of item.media) media.push(await uploadMedia(ctx, c.accessToken, m));
      return finish(ctx, c, body, media, since);
    },

    /**
     * Polls the media of a `pending` publish; once all succeeded, makes the post. Idempotent:
     * before posting it looks in the account's timeline (since the token was made) for a post
     * already carrying these media — one made by an earlier call whose answer was lost — and
     * answers that one instead of posting again.
     */
    async checkPublish(token, ctx): Promise<PublishResult> {
      const c = creds(ctx);
      const t = parseToken(token);
      const media: UploadedMedia[] = [];
      for (const m of t.media) {
        const s = await mediaStatus(ctx, c.accessToken, m.id);
        if (s.state === 'failed') throw new PlatformError('rejected', s.error ?? processingError({ state: 'failed' }));
        media.push({ ...s, key: m.key });
      }
      if (media.some((m) => m.state !== 'succeeded')) return { status: 'pending', token };
      const keys = new Set(t.media.map((m) => m.key));
      // A margin for the clocks of this server and X disagreeing.
      const recent = await timeline(ctx, c.accessToken, c.userId, { since: new Date(Date.parse(t.since) - LOOKBACK_MARGIN_MS), limit: 100, fields: 'created_at,attachments' });
      const existing = recent.find((tw) => tw.attachments?.media_keys?.some((k) => keys.has(k)));
      if (existing) return { status: 'published', id: existing.id, url: xPostUrl(c.username, existing.id) };
      return finish(ctx, c, t.body, media, Date.parse(t.since));
    },

    async findRecent({ since, limit }, ctx) {
      const c = creds(ctx);
      const tweets = await timeline(ctx, c.accessToken, c.userId, { since, limit, fields: 'created_at' });
      return tweets.map((tw) => ({ id: tw.id, url: xPostUrl(c.username, tw.id), content: tw.text, createdAt: tw.created_at ?? '' }));
    },

    /** X keeps no history of account counts for us: each figure is today's total, as one point. */
    async analytics(_days, ctx) {
      const c = creds(ctx);
      const m = await userMetrics(ctx, c.accessToken, c.userId);
      return series(ctx.clock.now(), [
        ['Followers', m.followers_count],
        ['Following', m.following_count],
        ['Tweets', m.tweet_count],
      ]);
    },

    async postAnalytics(postId, _days, ctx) {
      const c = creds(ctx);
      const m = await tweetMetrics(ctx, c.accessToken, postId);
      return series(ctx.clock.now(), [
        ['Impressions', m.impression_count],
        ['Likes', m.like_count],
        ['Retweets', m.retweet_count],
        ['Replies', m.reply_count],
        ['Quotes', m.quote_count],
        ['Bookmarks', m.bookmark_count],
      ]);
    },
  };
}

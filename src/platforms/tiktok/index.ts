import type { OAuthApp } from '../common/oauth2.js';
import { PlatformError, type AnalyticsSeries, type ConnectedAccount, type PlatformAdapter } from '../platform.js';
import {
  exchangeTiktokCode,
  refreshTiktokTokens,
  tiktokApi,
  tiktokAuthorizeUrl,
  tiktokCreds,
  type TiktokApp,
  type TiktokCredentials,
  type TiktokTokenSet,
} from './client.js';
import { tiktokMetadata } from './metadata.js';
import { tiktokPublishing } from './publishing.js';

export { CHUNK_BYTES, planChunks, tiktokPostUrl, TIKTOK_API, TIKTOK_UPLOAD, TIKTOK_WWW, type TiktokCredentials } from './client.js';
export { MISSING, type PendingPublish } from './publishing.js';

const PROFILE_FIELDS = ['open_id', 'union_id', 'avatar_url', 'display_name', 'username'] as const;
const STATS_FIELDS = ['follower_count', 'following_count', 'likes_count', 'video_count'] as const;
const VIDEO_STATS_FIELDS = ['id', 'view_count', 'like_count', 'comment_count', 'share_count'] as const;

function series(now: number, figures: [label: string, total: number | undefined][]): AnalyticsSeries[] {
  const date = new Date(now).toISOString().slice(0, 10);
  return figures.map(([label, total]) => ({ label, percentageChange: 0, data: [{ total: total ?? 0, date }] }));
}

function credentialsOf(tokens: TiktokTokenSet, username: string): TiktokCredentials {
  return {
    accessToken: tokens.accessToken,
    refreshToken: tokens.refreshToken,
    expiresAt: tokens.expiresAt?.toISOString() ?? null,
    refreshExpiresAt: tokens.refreshExpiresAt?.toISOString() ?? null,
    openId: tokens.openId,
    username,
    scope: tokens.scope,
  };
}

/**
 * Creates the TikTok adapter: Login Kit OAuth 2 (client key + secret, PKCE with TikTok's hex
 * challenge; 24-hour access tokens renewed with the rotating 365-day refresh token) and the
 * Content Posting API. Videos go up in chunks (FILE_UPLOAD) one chunk per `checkPublish`, photos
 * are pulled by TikTok from their public URL; direct posts end with the public post id, inbox
 * uploads with the release id `missing`. `chunkBytes` is for tests only.
 */
export function createTiktokAdapter(config: { app?: Partial<OAuthApp>; chunkBytes?: number } = {}): PlatformAdapter {
  const oauth = tiktokMetadata.oauth!;
  const publishing = tiktokPublishing({ chunkBytes: config.chunkBytes });

  function app(): TiktokApp {
    const a = config.app;
    if (!a?.clientId || !a.clientSecret) throw new PlatformError('unsupported', 'TikTok is not configured on this server: set TIKTOK_CLIENT_ID (the client key) and TIKTOK_CLIENT_SECRET');
    return { clientKey: a.clientId, clientSecret: a.clientSecret };
  }

  return {
    metadata: tiktokMetadata,

    async beginConnect(input) {
      return { url: tiktokAuthorizeUrl(oauth.authorizeUrl, oauth.scopes, app(), input) };
    },

    async completeConnect(input, ctx): Promise<ConnectedAccount> {
      const tokens = await exchangeTiktokCode(ctx, oauth.tokenUrl, app(), input);
      const user = await tiktokApi(ctx, tokens.accessToken).user(PROFILE_FIELDS);
      if (user.open_id && user.open_id !== tokens.openId) throw new PlatformError('rejected', 'TikTok answered for another user than the one who authorised the app');
      const username = user.username ?? '';
      return {
        internalId: tokens.openId,
        name: user.display_name || username || tokens.openId,
        profile: username || null,
        picture: user.avatar_url ?? null,
        credentials: { ...credentialsOf(tokens, username) },
        expiresAt: tokens.expiresAt,
      };
    },

    async refresh(ctx) {
      const c = tiktokCreds(ctx);
      const tokens = await refreshTiktokTokens(ctx, oauth.tokenUrl, app(), c.refreshToken);
      if (tokens.openId !== c.openId) throw new PlatformError('reconnect_required', 'TikTok renewed the token for another user');
      return { credentials: { ...credentialsOf(tokens, c.username) }, expiresAt: tokens.expiresAt };
    },

    validate: publishing.validate,
    publish: (input, ctx) => publishing.publish(input, ctx),
    checkPublish: (token, ctx) => publishing.checkPublish(token, ctx),
    findRecent: (input, ctx) => publishing.findRecent(input, ctx),

    /** Followers, following, likes and videos of the account now (TikTok gives no history). */
    async analytics(_days, ctx) {
      const u = await tiktokApi(ctx, tiktokCreds(ctx).accessToken).user(STATS_FIELDS);
      return series(ctx.clock.now(), [
        ['Followers', u.follower_count],
        ['Following', u.following_count],
        ['Likes', u.likes_count],
        ['Videos', u.video_count],
      ]);
    },

    /** Views, likes, comments and shares of one of the account's posts now. */
    async postAnalytics(postId, _days, ctx) {
      const { videos } = await tiktokApi(ctx, tiktokCreds(ctx).accessToken).queryVideos(VIDEO_STATS_FIELDS, [postId]);
      const v = videos?.find((x) => x.id === postId);
      if (!v) return [];
      return series(ctx.clock.now(), [
        ['Views', v.view_count],
        ['Likes', v.like_count],
        ['Comments', v.comment_count],
        ['Shares', v.share_count],
      ]);
    },

    async runTool(methodName, _data, ctx) {
      if (methodName !== 'creatorInfo') throw new PlatformError('unsupported', `TikTok has no tool ${methodName}`);
      return tiktokApi(ctx, tiktokCreds(ctx).accessToken).creatorInfo();
    },
  };
}

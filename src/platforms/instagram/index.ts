import { z } from 'zod';
import { readCredentials } from '../common/credentials.js';
import { FACEBOOK_GRAPH } from '../common/meta-client.js';
import { facebookAuthorizeUrl, facebookLogin, managedPages, requireMetaApp, type ManagedPage } from '../common/meta-login.js';
import type { OAuthApp } from '../common/oauth2.js';
import { PlatformError, type ConnectedAccount, type Credentials, type OperationContext, type PlatformAdapter } from '../platform.js';
import { instagramPublishing, searchAudio, validateInstagram } from './client.js';
import { instagramMetadata } from './metadata.js';

/** What a connected Instagram (Facebook Login) channel stores (sealed by the caller). */
export interface InstagramCredentials {
  igUserId: string;
  username: string;
  /** the Facebook Page the account is linked to, and its Page token (which does not expire) */
  pageId: string;
  pageToken: string;
  /** the long-lived Facebook user token (60 days): lists the accounts for the `accounts` tool and `selectAccount` */
  userToken: string;
  userId: string;
  userTokenExpiresAt: string | null;
}

type Ctx = OperationContext;

/** What an Instagram channel stores, read with the fallbacks older channels need. */
const InstagramCredentialsSchema = z
  .object({
    igUserId: z.string().min(1),
    pageId: z.string().min(1),
    pageToken: z.string().min(1),
    userToken: z.string().min(1),
    username: z.string().nullish(),
    userId: z.string().nullish(),
    userTokenExpiresAt: z.string().nullish(),
  })
  .transform(
    (c): InstagramCredentials => ({
      igUserId: c.igUserId,
      username: c.username ?? c.igUserId,
      pageId: c.pageId,
      pageToken: c.pageToken,
      userToken: c.userToken,
      userId: c.userId ?? '',
      userTokenExpiresAt: c.userTokenExpiresAt ?? null,
    }),
  );

const creds = (ctx: { credentials: Credentials }): InstagramCredentials => readCredentials(ctx, InstagramCredentialsSchema, 'Instagram');

type LinkedPage = ManagedPage & { instagram_business_account: NonNullable<ManagedPage['instagram_business_account']> };

/** Pages with an Instagram professional account linked. */
const linked = (pages: ManagedPage[]): LinkedPage[] => pages.filter((p): p is LinkedPage => !!p.instagram_business_account?.id && !!p.access_token);

function accountOf(page: LinkedPage, user: { token: string; userId: string; expiresAt: string | null }): ConnectedAccount {
  const ig = page.instagram_business_account;
  const credentials: InstagramCredentials = {
    igUserId: ig.id,
    username: ig.username ?? ig.id,
    pageId: page.id,
    pageToken: page.access_token!,
    userToken: user.token,
    userId: user.userId,
    userTokenExpiresAt: user.expiresAt,
  };
  // The channel posts with the Page token, which does not expire.
  return { internalId: ig.id, name: ig.name || ig.username || ig.id, profile: ig.username ?? null, picture: ig.profile_picture_url ?? null, credentials: { ...credentials }, expiresAt: null };
}

/**
 * Creates the Instagram adapter for Business and Creator accounts linked to a Facebook Page
 * (Instagram API with Facebook Login, host graph.facebook.com). Connecting lists the Pages the
 * user manages that have an Instagram account and connects the first; the `accounts` tool lists
 * them all and `selectAccount` switches. Publishing uses the Page token; see `common/instagram-publishing.ts`.
 */
export function createInstagramAdapter(config: { app?: OAuthApp } = {}): PlatformAdapter {
  const displayName = instagramMetadata.displayName;
  const access = (ctx: Ctx) => {
    const c = creds(ctx);
    return { origin: FACEBOOK_GRAPH, token: c.pageToken, igUserId: c.igUserId, username: c.username, audio: true };
  };
  const publishing = instagramPublishing({ displayName, access });

  return {
    metadata: instagramMetadata,

    async beginConnect(input) {
      const app = requireMetaApp(config.app, displayName);
      return { url: facebookAuthorizeUrl(instagramMetadata, app, input) };
    },

    async completeConnect(input, ctx): Promise<ConnectedAccount> {
      const app = requireMetaApp(config.app, displayName);
      const user = await facebookLogin(instagramMetadata, app, input, ctx);
      const page = linked(await managedPages(ctx, user.token, { instagram: true }))[0];
      if (!page) {
        throw new PlatformError('rejected', `No Instagram Business or Creator account is linked to the Facebook Pages ${user.userName} manages: link one to a Page in Instagram's settings, then connect again`);
      }
      return accountOf(page, user);
    },

    /** Switches the channel to another Instagram account linked to a Page the user manages (listed by the `accounts` tool). */
    async selectAccount(id, ctx): Promise<ConnectedAccount> {
      const c = creds(ctx);
      const page = linked(await managedPages(ctx, c.userToken, { instagram: true })).find((p) => p.instagram_business_account.id === id || p.instagram_business_account.username === id);
      if (!page) throw new PlatformError('rejected', `The connected Facebook user reaches no Instagram account ${id}`);
      return accountOf(page, { token: c.userToken, userId: c.userId, expiresAt: c.userTokenExpiresAt });
    },

    validate: (post) => validateInstagram(post, { audio: true }),
    publish: (input, ctx) => publishing.publish(input, ctx),
    checkPublish: (token, ctx) => publishing.checkPublish(token, ctx),
    findRecent: (input, ctx) => publishing.findRecent(input, ctx),
    analytics: (days, ctx) => publishing.analytics(days, ctx),
    postAnalytics: (id, days, ctx) => publishing.postAnalytics(id, days, ctx),

    async runTool(methodName, data, ctx) {
      const c = creds(ctx);
      if (methodName === 'accounts') {
        return linked(await managedPages(ctx, c.userToken, { instagram: true })).map((p) => ({
          id: p.instagram_business_account.id,
          username: p.instagram_business_account.username ?? null,
          name: p.instagram_business_account.name ?? null,
          picture: p.instagram_business_account.profile_picture_url ?? null,
          page: { id: p.id, name: p.name },
          current: p.instagram_business_account.id === c.igUserId,
        }));
      }
      if (methodName === 'audioSearch') {
        const { q, type } = data as { q: string; type: string };
        return searchAudio(ctx, c, q, type);
      }
      throw new PlatformError('unsupported', `${displayName} has no tool "${methodName}"`);
    },
  };
}

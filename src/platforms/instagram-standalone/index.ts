import { graphErrorBody, metaMessage } from '../common/meta-graph.js';
import { z } from 'zod';
import { readCredentials } from '../common/credentials.js';
import { INSTAGRAM_GRAPH } from '../common/meta-client.js';
import { requireMetaApp } from '../common/meta-login.js';
import type { OAuthApp } from '../common/oauth2.js';
import { PlatformError, type ConnectedAccount, type Credentials, type OperationContext, type PlatformAdapter } from '../platform.js';
import { exchangeCode, exchangeForLongLived, instagramMe, instagramPublishing, renewLongLived, validateInstagram } from './client.js';
import { instagramError, loginError } from './errors.js';
import { instagramStandaloneMetadata } from './metadata.js';

/** What a connected Instagram Login channel stores (sealed by the caller). */
export interface InstagramStandaloneCredentials {
  /** the 60-day long-lived Instagram user token */
  accessToken: string;
  igUserId: string;
  username: string;
  /** ISO times the token was issued and expires (Instagram's `expires_in`) */
  issuedAt: string;
  expiresAt: string;
}

type Ctx = OperationContext;
type ConnectCtx = Omit<OperationContext, 'credentials'>;

const DAY = 86_400_000;
/**
 * How long before its expiry the token is renewed. The service refreshes a channel's token when
 * it is used past `tokenExpiresAt`, so the channel reports this earlier time: ten days of margin
 * on a 60-day token (Instagram renews a token only once it is a day old).
 */
export const REFRESH_MARGIN_MS = 10 * DAY;

/** What an Instagram Login channel stores, read with the fallbacks older channels need. */
const InstagramStandaloneCredentialsSchema = z
  .object({ accessToken: z.string().min(1), igUserId: z.string().min(1), username: z.string().nullish(), issuedAt: z.string().nullish(), expiresAt: z.string().nullish() })
  .transform(
    (c): InstagramStandaloneCredentials => ({
      accessToken: c.accessToken,
      igUserId: c.igUserId,
      username: c.username ?? c.igUserId,
      issuedAt: c.issuedAt ?? new Date(0).toISOString(),
      expiresAt: c.expiresAt ?? new Date(0).toISOString(),
    }),
  );

const creds = (ctx: { credentials: Credentials }): InstagramStandaloneCredentials => readCredentials(ctx, InstagramStandaloneCredentialsSchema, 'Instagram');

/** When the channel should be refreshed: `REFRESH_MARGIN_MS` before expiry, but not before the token is a day old. */
export function refreshDue(c: Pick<InstagramStandaloneCredentials, 'issuedAt' | 'expiresAt'>): Date {
  return new Date(Math.max(Date.parse(c.expiresAt) - REFRESH_MARGIN_MS, Date.parse(c.issuedAt) + DAY + 60_000));
}

/** A long-lived token answer (`ig_exchange_token` or `ig_refresh_token`). */
function longLived(body: unknown, now: number): { accessToken: string; issuedAt: string; expiresAt: string } {
  const b = (body ?? {}) as { access_token?: string; expires_in?: number };
  if (!b.access_token) throw new PlatformError('transient', 'Instagram returned no access token');
  const expiresIn = Number(b.expires_in);
  return { accessToken: b.access_token, issuedAt: new Date(now).toISOString(), expiresAt: new Date(now + (Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn * 1000 : 60 * DAY)).toISOString() };
}

/**
 * Creates the Instagram adapter for professional accounts without a Facebook Page (Instagram
 * API with Instagram Login, host graph.instagram.com). The code gives a one-hour token, exchanged
 * at once for a 60-day one; `refresh` renews it (`ig_refresh_token`) well before it expires, and a
 * token that can no longer be renewed is `reconnect_required`, which marks the channel and
 * notifies the organisation. Publishing is `instagram`'s (see `common/instagram-publishing.ts`), without
 * licensed audio (Meta keeps that to Facebook Login).
 */
export function createInstagramStandaloneAdapter(config: { app?: OAuthApp } = {}): PlatformAdapter {
  const metadata = instagramStandaloneMetadata;
  const displayName = metadata.displayName;
  const access = (ctx: Ctx) => {
    const c = creds(ctx);
    return { origin: INSTAGRAM_GRAPH, token: c.accessToken, igUserId: c.igUserId, username: c.username, audio: false };
  };
  const publishing = instagramPublishing({ displayName, access });

  async function exchange(app: OAuthApp, input: { code: string; redirectUri: string }, ctx: ConnectCtx) {
    const res = await exchangeCode(ctx, metadata.oauth!.tokenUrl, app, input);
    const err = loginError(res);
    if (err) throw err;
    // The current answer wraps the token in `data: [...]`; older apps got it flat.
    const b = (res.body ?? {}) as { data?: { access_token?: string; user_id?: string | number; permissions?: string | string[] }[]; access_token?: string; permissions?: string | string[] };
    const entry = b.data?.[0] ?? b;
    if (!entry.access_token) throw new PlatformError('rejected', 'Instagram returned no access token');
    const granted = new Set((Array.isArray(entry.permissions) ? entry.permissions : (entry.permissions ?? '').split(',')).map((p) => p.trim()).filter(Boolean));
    const missing = granted.size > 0 ? metadata.oauth!.scopes.filter((s) => !granted.has(s)) : [];
    if (missing.length > 0) throw new PlatformError('rejected', `Instagram did not grant every permission ${displayName} needs (${missing.join(', ')}): connect again and allow them all`);
    return entry.access_token;
  }

  return {
    metadata,

    async beginConnect(input) {
      const app = requireMetaApp(config.app, displayName);
      const url = new URL(metadata.oauth!.authorizeUrl);
      url.searchParams.set('enable_fb_login', '0');
      url.searchParams.set('client_id', app.clientId);
      url.searchParams.set('redirect_uri', input.redirectUri);
      url.searchParams.set('response_type', 'code');
      url.searchParams.set('scope', metadata.oauth!.scopes.join(','));
      url.searchParams.set('state', input.state);
      return { url: url.toString() };
    },

    async completeConnect(input, ctx): Promise<ConnectedAccount> {
      const app = requireMetaApp(config.app, displayName);
      const short = await exchange(app, input, ctx);
      const llRes = await exchangeForLongLived(ctx, app, short);
      const llErr = loginError(llRes);
      if (llErr) throw llErr;
      const token = longLived(llRes.body, ctx.clock.now());
      const me = await instagramMe(ctx, token.accessToken);
      const igUserId = String(me.user_id ?? me.id ?? '');
      if (!igUserId) throw new PlatformError('rejected', 'Instagram did not say which account authorised the app');
      const credentials: InstagramStandaloneCredentials = { ...token, igUserId, username: me.username ?? igUserId };
      return { internalId: igUserId, name: me.name || me.username || igUserId, profile: me.username ?? null, picture: me.profile_picture_url ?? null, credentials: { ...credentials }, expiresAt: refreshDue(credentials) };
    },

    /**
     * Renews the long-lived token. Instagram renews only tokens at least a day old: a younger one
     * is kept as it is. A token past its expiry, or one Instagram no longer accepts (190), cannot
     * be renewed: `reconnect_required`.
     */
    async refresh(ctx) {
      const c = creds(ctx);
      const now = ctx.clock.now();
      if (Date.parse(c.expiresAt) <= now) {
        throw new PlatformError('reconnect_required', `The Instagram token expired on ${c.expiresAt} and can no longer be renewed: reconnect the channel`);
      }
      const res = await renewLongLived(ctx, c.accessToken);
      const e = graphErrorBody(res);
      if (e?.code === 190) throw new PlatformError('reconnect_required', `Instagram would not renew the token: ${metaMessage(e, 'invalid token')}`, { status: res.status, platformCode: e.error_subcode ? `190/${e.error_subcode}` : '190' });
      if (e && /at least 24 hours old/i.test(e.message ?? '')) return { credentials: { ...c }, expiresAt: refreshDue(c) };
      const err = instagramError(res, now);
      if (err) throw err;
      const next: InstagramStandaloneCredentials = { ...c, ...longLived(res.body, now) };
      return { credentials: { ...next }, expiresAt: refreshDue(next) };
    },

    validate: (post) => validateInstagram(post, { audio: false }),
    publish: (input, ctx) => publishing.publish(input, ctx),
    checkPublish: (token, ctx) => publishing.checkPublish(token, ctx),
    findRecent: (input, ctx) => publishing.findRecent(input, ctx),
    analytics: (days, ctx) => publishing.analytics(days, ctx),
    postAnalytics: (id, days, ctx) => publishing.postAnalytics(id, days, ctx),
  };
}

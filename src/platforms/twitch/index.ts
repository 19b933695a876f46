import { readCredentials, StoredOAuthTokens, storedText } from '../common/credentials.js';
import { createHash } from 'node:crypto';
import { htmlToText } from '../common/html.js';
import { buildAuthorizeUrl, exchangeCode, refreshTokens, type OAuthApp, type TokenSet } from '../common/oauth2.js';
import { PlatformError, type ConnectedAccount, type Credentials, type PlatformAdapter } from '../platform.js';
import { channelUrl, helix, type HelixUser } from './client.js';
import { sentMessageId } from './errors.js';
import { TwitchSettingsSchema, twitchMetadata } from './metadata.js';

const OAUTH = twitchMetadata.oauth!;
const MAX_CHARS = twitchMetadata.text.maxLength;
/** Ids this adapter makes for announcements, which Twitch answers with 204 and no id. */
export const ANNOUNCEMENT_ID_PREFIX = 'announcement-';

/** What a connected Twitch channel stores (sealed by the caller). */
export interface TwitchCredentials {
  accessToken: string;
  refreshToken: string | null;
  expiresAt: string | null;
  /** the Twitch user id: sender, broadcaster and moderator of the user's own chat */
  userId: string;
  login: string;
}

/** A stable id for an announcement, from the publish attempt's idempotency key. */
export const announcementId = (idempotencyKey: string) => `${ANNOUNCEMENT_ID_PREFIX}${createHash('sha256').update(idempotencyKey).digest('hex').slice(0, 32)}`;

function requireApp(app: OAuthApp | undefined): OAuthApp {
  if (!app?.clientId || !app.clientSecret) throw new PlatformError('unsupported', 'Twitch is not configured (set TWITCH_CLIENT_ID and TWITCH_CLIENT_SECRET)');
  return app;
}

const StoredTwitchCredentials = StoredOAuthTokens.extend({ userId: storedText, login: storedText });
const twitchCreds = (ctx: { credentials: Credentials }): TwitchCredentials => readCredentials(ctx, StoredTwitchCredentials, 'Twitch');

/** The chat text Twitch takes: plain text from the stored HTML, within its 500 characters. */
export function chatText(html: string, media: readonly unknown[] = []): string {
  if (media.length > 0) throw new PlatformError('rejected', 'Twitch chat messages are text only: remove the pictures and videos');
  const text = htmlToText(html);
  if (text === '') throw new PlatformError('rejected', 'A Twitch chat message cannot be empty');
  if (text.length > MAX_CHARS) throw new PlatformError('rejected', `A Twitch chat message takes at most ${MAX_CHARS} characters; this one has ${text.length}`);
  return text;
}

/**
 * Creates the Twitch adapter: OAuth 2 authorisation code (client secret in the form), ~4 h access
 * tokens renewed with the refresh token (Twitch may hand out a new one: it is stored); Helix calls
 * carry `Authorization: Bearer` and `Client-Id`. A post is a chat message in the user's own chat,
 * or — with `messageType: "announcement"` — an announcement in `announcementColor`. Thread items are
 * chat messages replying to the previous message.
 *
 * Twitch cannot list chat messages, so there is no `findRecent`: an attempt interrupted after the
 * message left ends "outcome unknown" instead of being sent again.
 */
export function createTwitchAdapter(config: { app?: OAuthApp } = {}): PlatformAdapter {
  const tokenCredentials = (tokens: TokenSet) => ({ accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, expiresAt: tokens.expiresAt?.toISOString() ?? null });

  return {
    metadata: twitchMetadata,

    async beginConnect({ state, redirectUri }) {
      const app = requireApp(config.app);
      return { url: buildAuthorizeUrl(OAUTH, { clientId: app.clientId, redirectUri, state }) };
    },

    async completeConnect({ code, redirectUri }, ctx): Promise<ConnectedAccount> {
      const app = requireApp(config.app);
      const tokens = await exchangeCode(ctx.http, { tokenUrl: OAUTH.tokenUrl, app, code, redirectUri, now: ctx.clock.now() });
      // Twitch answers `scope` as an array.
      const scope = tokens.raw.scope;
      const granted = Array.isArray(scope) ? scope.map(String) : typeof scope === 'string' ? scope.split(' ') : undefined;
      if (granted && !granted.includes('user:write:chat')) throw new PlatformError('rejected', 'Twitch did not grant the user:write:chat permission: connect again and allow it');
      const users = await helix(ctx, app, tokens.accessToken).get<{ data?: HelixUser[] }>('/helix/users');
      const user = users.data?.[0];
      if (!user?.id || !user.login) throw new PlatformError('rejected', 'Twitch returned no user for this authorisation');
      const credentials: TwitchCredentials = { ...tokenCredentials(tokens), userId: user.id, login: user.login };
      return { internalId: user.id, name: user.display_name || user.login, profile: user.login, picture: user.profile_image_url || null, credentials: { ...credentials }, expiresAt: tokens.expiresAt };
    },

    /** Renews the access token with the refresh token; the refresh token Twitch answers with is stored. */
    async refresh(ctx) {
      const app = requireApp(config.app);
      const c = twitchCreds(ctx);
      if (!c.refreshToken) throw new PlatformError('reconnect_required', 'No Twitch refresh token is stored: reconnect the channel');
      let tokens: TokenSet;
      try {
        tokens = await refreshTokens(ctx.http, { tokenUrl: OAUTH.tokenUrl, app, refreshToken: c.refreshToken, now: ctx.clock.now() });
      } catch (e) {
        // Twitch answers a dead refresh token with 400 `{"status":400,"message":"Invalid refresh token"}`.
        if (e instanceof PlatformError && e.kind === 'rejected') throw new PlatformError('reconnect_required', `Twitch refused the refresh token: ${e.message}`, e.details);
        throw e;
      }
      const credentials: TwitchCredentials = { ...c, ...tokenCredentials(tokens) };
      return { credentials: { ...credentials }, expiresAt: tokens.expiresAt };
    },

    validate() {
      return [];
    },

    /**
     * Sends one chat message (a thread item replies to the previous message) or, for the first
     * item of a post with `messageType: "announcement"`, an announcement. Twitch answers an
     * announcement with 204 and no id, so its id is made from the attempt's idempotency key
     * (stable for a given attempt); a reply to an announcement goes without a reply parent.
     * NOT idempotent: Twitch takes no idempotency key and cannot list sent messages.
     */
    async publish({ item, settings, replyTo, idempotencyKey }, ctx) {
      const app = requireApp(config.app);
      const c = twitchCreds(ctx);
      const message = chatText(item.content, item.media);
      const parsed = TwitchSettingsSchema.safeParse(settings);
      const s = parsed.success ? parsed.data : {};
      const api = helix(ctx, app, c.accessToken);
      const url = channelUrl(c.login);
      if (s.messageType === 'announcement' && !replyTo) {
        const q = new URLSearchParams({ broadcaster_id: c.userId, moderator_id: c.userId });
        const res = await api.post(`/helix/chat/announcements?${q.toString()}`, { message, color: s.announcementColor ?? 'primary' });
        if (res.status !== 204 && res.status !== 200) throw new PlatformError('transient', `Twitch answered the announcement with HTTP ${res.status}`, { outcomeUnknown: true });
        return { status: 'published', id: announcementId(idempotencyKey), url };
      }
      const parent = replyTo && !replyTo.id.startsWith(ANNOUNCEMENT_ID_PREFIX) ? replyTo.id : undefined;
      const res = await api.post('/helix/chat/messages', { broadcaster_id: c.userId, sender_id: c.userId, message, ...(parent ? { reply_parent_message_id: parent } : {}) });
      return { status: 'published', id: sentMessageId(res.body), url };
    },
  };
}

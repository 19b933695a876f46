import { readCredentials, StoredOAuthTokens, storedText } from '../common/credentials.js';
import { htmlToText } from '../common/html.js';
import { buildAuthorizeUrl, exchangeCode, refreshTokens, type OAuthApp, type TokenSet } from '../common/oauth2.js';
import { PlatformError, type ConnectedAccount, type Credentials, type PlatformAdapter } from '../platform.js';
import { apiGet, channelUrl, sendChat, type KickChannel, type KickUser } from './client.js';
import { kickMetadata } from './metadata.js';

const OAUTH = kickMetadata.oauth!;
const MAX_CHARS = kickMetadata.text.maxLength;

/** What a connected Kick channel stores (sealed by the caller). */
export interface KickCredentials {
  accessToken: string;
  refreshToken: string | null;
  /** ISO time the access token expires */
  expiresAt: string | null;
  /** Kick's numeric user id, as a string: also the broadcaster id of the user's own channel */
  userId: string;
  /** the channel's slug (`https://kick.com/<slug>`) */
  slug: string;
}

function requireApp(app: OAuthApp | undefined): OAuthApp {
  if (!app?.clientId || !app.clientSecret) throw new PlatformError('unsupported', 'Kick is not configured (set KICK_CLIENT_ID and KICK_CLIENT_SECRET)');
  return app;
}

const StoredKickCredentials = StoredOAuthTokens.extend({ userId: storedText, slug: storedText });
const kickCreds = (ctx: { credentials: Credentials }): KickCredentials => readCredentials(ctx, StoredKickCredentials, 'Kick');

/** The chat text Kick takes: plain text from the stored HTML, within its 500 characters. */
export function chatText(html: string, media: readonly unknown[] = []): string {
  if (media.length > 0) throw new PlatformError('rejected', 'Kick chat messages are text only: remove the pictures and videos');
  const text = htmlToText(html);
  if (text === '') throw new PlatformError('rejected', 'A Kick chat message cannot be empty');
  if (text.length > MAX_CHARS) throw new PlatformError('rejected', `A Kick chat message takes at most ${MAX_CHARS} characters; this one has ${text.length}`);
  return text;
}

/**
 * Creates the Kick adapter: OAuth 2.1 with mandatory PKCE (S256), the client secret in the form
 * of the token call, refresh tokens (rotated: each refresh returns a new one); a post is a chat
 * message in the user's own channel (`type: "user"`), thread items reply to the previous message.
 *
 * Kick cannot list sent chat messages, so there is no `findRecent`: an attempt interrupted after
 * the message left ends "outcome unknown" instead of being sent again.
 */
export function createKickAdapter(config: { app?: OAuthApp } = {}): PlatformAdapter {
  function tokenCredentials(tokens: TokenSet): Pick<KickCredentials, 'accessToken' | 'refreshToken' | 'expiresAt'> {
    return { accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, expiresAt: tokens.expiresAt?.toISOString() ?? null };
  }

  return {
    metadata: kickMetadata,

    async beginConnect({ state, redirectUri, codeChallenge }) {
      const app = requireApp(config.app);
      if (!codeChallenge) throw new PlatformError('unsupported', 'Kick requires PKCE: no code challenge was given');
      return { url: buildAuthorizeUrl(OAUTH, { clientId: app.clientId, redirectUri, state, codeChallenge }) };
    },

    async completeConnect({ code, redirectUri, codeVerifier }, ctx): Promise<ConnectedAccount> {
      const app = requireApp(config.app);
      if (!codeVerifier) throw new PlatformError('rejected', 'Kick requires PKCE: the code verifier is missing');
      let tokens: TokenSet;
      try {
        tokens = await exchangeCode(ctx.http, { tokenUrl: OAUTH.tokenUrl, app, code, redirectUri, codeVerifier, now: ctx.clock.now() });
      } catch (e) {
        // Kick answers a wrong client secret with 401: the server's app, not a token to refresh.
        if (e instanceof PlatformError && e.kind === 'auth_expired') {
          throw new PlatformError('rejected', `Kick refused this server's app (check KICK_CLIENT_ID and KICK_CLIENT_SECRET): ${e.message}`, e.details);
        }
        throw e;
      }
      const granted = tokens.scope?.split(/[\s,]+/).filter(Boolean);
      if (granted && !granted.includes('chat:write')) throw new PlatformError('rejected', 'Kick did not grant the chat:write permission: connect again and allow it');
      const users = await apiGet<{ data?: KickUser[] }>(ctx, tokens.accessToken, '/public/v1/users');
      const user = users.data?.[0];
      if (user?.user_id === undefined || !user.name) throw new PlatformError('rejected', 'Kick returned no user for this authorisation');
      const channels = await apiGet<{ data?: KickChannel[] }>(ctx, tokens.accessToken, '/public/v1/channels');
      const userId = String(user.user_id);
      const channel = channels.data?.find((c) => String(c.broadcaster_user_id) === userId) ?? channels.data?.[0];
      const slug = channel?.slug ?? user.name.toLowerCase();
      const credentials: KickCredentials = { ...tokenCredentials(tokens), userId, slug };
      return { internalId: userId, name: user.name, profile: slug, picture: user.profile_picture || null, credentials: { ...credentials }, expiresAt: tokens.expiresAt };
    },

    /** Renews the access token; Kick rotates the refresh token, so the new one is returned to be stored. */
    async refresh(ctx) {
      const app = requireApp(config.app);
      const c = kickCreds(ctx);
      if (!c.refreshToken) throw new PlatformError('reconnect_required', 'No Kick refresh token is stored: reconnect the channel');
      let tokens: TokenSet;
      try {
        tokens = await refreshTokens(ctx.http, { tokenUrl: OAUTH.tokenUrl, app, refreshToken: c.refreshToken, now: ctx.clock.now() });
      } catch (e) {
        // Kick answers a dead refresh token with a bare 400/401 `{"error":"Invalid request"}`.
        if (e instanceof PlatformError && e.kind === 'rejected' && (e.details.status ?? 0) < 500) {
          throw new PlatformError('reconnect_required', `Kick refused the refresh token: ${e.message}`, e.details);
        }
        throw e;
      }
      const credentials: KickCredentials = { ...c, ...tokenCredentials(tokens) };
      return { credentials: { ...credentials }, expiresAt: tokens.expiresAt };
    },

    validate() {
      // Length and "text only" are in the metadata; the converted text is checked again at publish time.
      return [];
    },

    /**
     * Sends one chat message to the user's own channel; a thread item replies to the previous
     * message. NOT idempotent (Kick has no idempotency key and no listing of sent messages).
     */
    async publish({ item, replyTo }, ctx) {
      const c = kickCreds(ctx);
      const content = chatText(item.content, item.media);
      const broadcaster = Number(c.userId);
      const id = await sendChat(ctx, c.accessToken, {
        type: 'user',
        content,
        broadcaster_user_id: Number.isSafeInteger(broadcaster) ? broadcaster : c.userId,
        ...(replyTo ? { reply_to_message_id: replyTo.id } : {}),
      });
      return { status: 'published', id, url: channelUrl(c.slug) };
    },
  };
}

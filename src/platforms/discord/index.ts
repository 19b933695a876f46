import { buildAuthorizeUrl, exchangeCode, type OAuthApp } from '../common/oauth2.js';
import { PlatformError, type ConnectedAccount, type PlatformAdapter, type PublishResult, type ValidationIssue } from '../platform.js';
import {
  creds,
  DISCORD_BOT_PERMISSIONS,
  DISCORD_CONTENT_LIMIT,
  discordClient,
  discordGuildIconUrl,
  discordMessageUrl,
  POSTABLE_TYPES,
  type Channel,
  type DiscordCredentials,
  type Guild,
  type Message,
} from './client.js';
import { htmlToDiscordMarkdown } from './markdown.js';
import { discordMetadata } from './metadata.js';

export { DISCORD_BOT_PERMISSIONS, DISCORD_CONTENT_LIMIT, discordGuildIconUrl, discordMessageUrl, threadName } from './client.js';

export interface DiscordConfig {
  /** the OAuth application that installs the bot */
  app?: OAuthApp;
  /** that application's bot token: every API call after connecting uses it */
  botToken?: string;
}

/**
 * Creates the Discord adapter. Connecting is the OAuth bot install (`bot identify guilds`): the
 * token answer names the guild the bot joined, which becomes the channel; the user's own token
 * is used for nothing else. Every later call uses the deployment's bot token.
 *
 * Posts go to `settings.channel`; without one (the shared contract publishes with `{}`), to the
 * guild's system channel (`system_channel_id` of `GET /guilds/{id}`), and `rejected` when the
 * guild has none.
 */
export function createDiscordAdapter(config: DiscordConfig = {}): PlatformAdapter {
  function botToken(): string {
    if (!config.botToken) throw new PlatformError('unsupported', 'Discord is not configured: the bot token is missing');
    return config.botToken;
  }

  const { api, defaultChannel, targetChannel, ensureThread, postMessage, threadReplies } = discordClient(botToken);

  return {
    metadata: discordMetadata,

    async beginConnect({ state, redirectUri }) {
      if (!config.app || !config.botToken) throw new PlatformError('unsupported', 'Discord is not configured');
      const url = buildAuthorizeUrl(discordMetadata.oauth!, {
        clientId: config.app.clientId,
        redirectUri,
        state,
        extra: { permissions: DISCORD_BOT_PERMISSIONS, integration_type: '0' },
      });
      return { url };
    },

    async completeConnect({ code, redirectUri }, ctx): Promise<ConnectedAccount> {
      if (!config.app || !config.botToken) throw new PlatformError('unsupported', 'Discord is not configured');
      const tokens = await exchangeCode(ctx.http, {
        tokenUrl: discordMetadata.oauth!.tokenUrl,
        app: config.app,
        code,
        redirectUri,
        clientAuth: 'body',
        now: ctx.clock.now(),
      });
      const granted = tokens.raw.guild as { id?: unknown } | undefined;
      if (!granted || typeof granted.id !== 'string') {
        throw new PlatformError('rejected', 'Discord did not add the bot to a server: choose a server on the authorisation page');
      }
      // The bot token must belong to the same application, or it cannot see the server.
      let guild: Guild;
      try {
        guild = await api<Guild>(ctx, 'GET', `/guilds/${granted.id}`);
      } catch (e) {
        if (e instanceof PlatformError && e.kind === 'reconnect_required') {
          throw new PlatformError('rejected', `The configured bot cannot see the server it was just added to (${e.message}); the bot token must belong to the OAuth application`, e.details);
        }
        throw e;
      }
      return {
        internalId: guild.id,
        name: guild.name,
        profile: null,
        picture: discordGuildIconUrl(guild.id, guild.icon),
        credentials: { guildId: guild.id } satisfies DiscordCredentials,
        // The user token is not kept; the bot token does not expire.
        expiresAt: null,
      };
    },

    validate(post): ValidationIssue[] {
      const issues: ValidationIssue[] = [];
      for (const [i, item] of post.items.entries()) {
        const length = htmlToDiscordMarkdown(item.content).length;
        if (length > DISCORD_CONTENT_LIMIT) {
          issues.push({ path: `value.${i}.content`, code: 'too_long', message: `Discord allows ${DISCORD_CONTENT_LIMIT} characters of Markdown; this has ${length}` });
        }
        if (length === 0 && item.media.length === 0) issues.push({ path: `value.${i}.content`, code: 'empty', message: 'Discord cannot send an empty message' });
      }
      return issues;
    },

    /**
     * NOT idempotent: Discord has no idempotency key (its `nonce` only deduplicates within a few
     * seconds of one gateway session), so a retried call posts twice. Thread items go into a thread
     * started from the first message on the first reply (`POST …/messages/{id}/threads`); later
     * ones post into it.
     */
    async publish({ item, settings, replyTo }, ctx): Promise<PublishResult> {
      const { guildId } = creds(ctx);
      botToken();
      const channel = await targetChannel(ctx, guildId, settings);
      const target = replyTo ? await ensureThread(ctx, channel, replyTo.rootId) : channel;
      const message = await postMessage(ctx, target, item, htmlToDiscordMarkdown(item.content));
      return { status: 'published', id: message.id, url: discordMessageUrl(guildId, message.channel_id, message.id) };
    },

    async runTool(methodName, _data, ctx) {
      if (methodName !== 'channels') throw new PlatformError('unsupported', `Discord has no tool ${methodName}`);
      const { guildId } = creds(ctx);
      const channels = await api<Channel[]>(ctx, 'GET', `/guilds/${guildId}/channels`);
      return channels
        .filter((c) => POSTABLE_TYPES.has(c.type))
        .sort((a, b) => (a.position ?? 0) - (b.position ?? 0))
        .map((c) => ({ id: c.id, name: c.name ?? c.id }));
    },

    /**
     * The bot's recent messages in the server's system channel (the only channel known without a
     * post's settings); empty when the server has none. With `replyTo`, instead its messages in
     * the thread of `replyTo.rootId`, where `publish` puts every reply.
     */
    /** The bot's recent messages in the post's channel (the server's system channel when none was chosen); with `replyTo`, in its thread. */
    async findRecent({ since, limit, replyTo, settings }, ctx) {
      const { guildId } = creds(ctx);
      if (replyTo) return threadReplies(ctx, guildId, replyTo.rootId, since, limit);
      const chosen = typeof settings?.channel === 'string' ? settings.channel.trim() : '';
      const channel = chosen || (await defaultChannel(ctx, guildId));
      if (!channel) return [];
      const me = await api<{ id: string }>(ctx, 'GET', '/users/@me');
      const messages = await api<Message[]>(ctx, 'GET', `/channels/${channel}/messages?limit=${Math.min(100, Math.max(1, limit))}`);
      return messages
        .filter((m) => m.author.id === me.id && Date.parse(m.timestamp) >= since.getTime())
        .slice(0, limit)
        .map((m) => ({ id: m.id, url: discordMessageUrl(guildId, m.channel_id, m.id), content: m.content, createdAt: new Date(m.timestamp).toISOString() }));
    },
  };
}

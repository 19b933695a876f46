import { buildAuthorizeUrl, exchangeCode, type OAuthApp } from '../common/oauth2.js';
import {
  PlatformError,
  type ConnectedAccount,
  type OperationContext,
  type PlatformAdapter,
  type PlatformRequest,
  type PublishItem,
  type PublishResult,
  type ValidationIssue,
} from '../platform.js';
import { DISCORD_CODES, discordError, discordResult } from './errors.js';
import { htmlToDiscordMarkdown } from './markdown.js';
import { discordMetadata } from './metadata.js';
import { mediaFileName } from '../common/media.js';

const API = 'https://discord.com/api/v10';
const CDN = 'https://cdn.discordapp.com';
/** Discord's own cap on `content` (the metadata keeps 20 spare for mentions). */
export const DISCORD_CONTENT_LIMIT = 2000;
/** Channel types the bot can post in: text (0) and announcement (5). */
const POSTABLE_TYPES = new Set([0, 5]);
/** Thread types: public (11), private (12), announcement thread (10). */
const THREAD_TYPES = new Set([10, 11, 12]);
/** Messages per page of `GET /channels/{id}/messages`: Discord's maximum. */
const MESSAGE_PAGE = 100;
/** Pages read at most when looking for a reply in a thread. */
const MESSAGE_PAGES = 10;
/** The system message opening a thread started from a message: not a reply. */
const THREAD_STARTER_MESSAGE = 21;

/**
 * Permissions asked for when the bot is added: View Channel, Send Messages, Embed Links, Attach
 * Files, Read Message History, Create Public Threads, Send Messages in Threads.
 */
export const DISCORD_BOT_PERMISSIONS = [10n, 11n, 14n, 15n, 16n, 35n, 38n].reduce((acc, bit) => acc | (1n << bit), 0n).toString();

export interface DiscordConfig {
  /** the OAuth application that installs the bot */
  app?: OAuthApp;
  /** that application's bot token: every API call after connecting uses it */
  botToken?: string;
}

/** What a Discord channel stores: the server the bot was added to. */
interface DiscordCredentials {
  guildId: string;
}

interface Guild {
  id: string;
  name: string;
  icon: string | null;
  system_channel_id: string | null;
}

interface Channel {
  id: string;
  type: number;
  name?: string;
  position?: number;
  parent_id?: string | null;
}

interface Message {
  id: string;
  type?: number;
  channel_id: string;
  content: string;
  timestamp: string;
  author: { id: string; bot?: boolean };
}

type Ctx = Pick<OperationContext, 'http' | 'clock'>;

function creds(ctx: { credentials: Record<string, unknown> }): DiscordCredentials {
  const guildId = ctx.credentials.guildId;
  if (typeof guildId !== 'string' || guildId === '') throw new PlatformError('reconnect_required', 'Stored Discord credentials are incomplete');
  return { guildId };
}

export function discordMessageUrl(guildId: string, channelId: string, messageId: string): string {
  return `https://discord.com/channels/${guildId}/${channelId}/${messageId}`;
}

export function discordGuildIconUrl(guildId: string, icon: string | null): string | null {
  return icon ? `${CDN}/icons/${guildId}/${icon}.png` : null;
}

/** A thread name (1–100 characters) from the first line of the starter message. */
export function threadName(content: string): string {
  const line = content
    .split('\n')
    .map((l) => l.replace(/^(#{1,3}|>|-|\d+\.)\s+/, '').replace(/(\*\*|__|~~|[*`])/g, '').trim())
    .find((l) => l !== '');
  if (!line) return 'Thread';
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
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

  function send(ctx: Ctx, method: PlatformRequest['method'], path: string, body?: PlatformRequest['body']) {
    return ctx.http.request({ method, url: `${API}${path}`, headers: { authorization: `Bot ${botToken()}` }, body });
  }

  async function api<T>(ctx: Ctx, method: PlatformRequest['method'], path: string, body?: PlatformRequest['body']): Promise<T> {
    return discordResult<T>(await send(ctx, method, path, body), ctx.clock.now());
  }

  async function defaultChannel(ctx: Ctx, guildId: string): Promise<string | null> {
    const guild = await api<Guild>(ctx, 'GET', `/guilds/${guildId}`);
    return guild.system_channel_id;
  }

  async function targetChannel(ctx: Ctx, guildId: string, settings: Record<string, unknown>): Promise<string> {
    const chosen = typeof settings.channel === 'string' ? settings.channel.trim() : '';
    if (chosen) return chosen;
    const fallback = await defaultChannel(ctx, guildId);
    if (!fallback) throw new PlatformError('rejected', 'No channel chosen, and this Discord server has no system channel to post in');
    return fallback;
  }

  /**
   * The thread of `rootId`, started on the first reply. A thread started from a message has the
   * message's id, so its existence is one `GET /channels/{rootId}`.
   */
  async function ensureThread(ctx: Ctx, channelId: string, rootId: string): Promise<string> {
    const existing = await send(ctx, 'GET', `/channels/${rootId}`);
    const err = discordError(existing, ctx.clock.now());
    if (!err) {
      const ch = existing.body as Channel;
      if (!THREAD_TYPES.has(ch.type)) throw new PlatformError('rejected', `Discord channel ${rootId} is not a thread`);
      return ch.id;
    }
    if (err.details.platformCode !== String(DISCORD_CODES.unknownChannel)) throw err;
    // The name comes from the first message; a failure to read it only costs a generic name.
    let name = 'Thread';
    try {
      name = threadName((await api<Message>(ctx, 'GET', `/channels/${channelId}/messages/${rootId}`)).content);
    } catch (e) {
      if (e instanceof PlatformError && (e.kind === 'reconnect_required' || e.kind === 'rate_limited')) throw e;
    }
    const created = await send(ctx, 'POST', `/channels/${channelId}/messages/${rootId}/threads`, { name, auto_archive_duration: 1440 });
    const createErr = discordError(created, ctx.clock.now());
    // Another publish started it in the meantime: its id is still the message's.
    if (createErr?.details.platformCode === String(DISCORD_CODES.threadAlreadyCreated)) return rootId;
    if (createErr) throw createErr;
    return (created.body as Channel).id;
  }

  async function postMessage(ctx: OperationContext, channelId: string, item: PublishItem, content: string): Promise<Message> {
    if (item.media.length === 0) return api<Message>(ctx, 'POST', `/channels/${channelId}/messages`, { content });
    const form = new FormData();
    const attachments: { id: number; filename: string; description?: string }[] = [];
    const files: [string, Blob, string][] = [];
    for (const [i, m] of item.media.entries()) {
      const filename = mediaFileName(m);
      files.push([`files[${i}]`, await ctx.openMedia(m), filename]);
      attachments.push({ id: i, filename, ...(m.alt ? { description: m.alt.slice(0, 1024) } : {}) });
    }
    form.set('payload_json', JSON.stringify({ content, attachments }));
    for (const [field, blob, filename] of files) form.set(field, blob, filename);
    return api<Message>(ctx, 'POST', `/channels/${channelId}/messages`, form);
  }

  /**
   * The bot's messages in the thread of `rootId` posted since `since`, newest first, at most
   * `limit`. Replies go into the thread started from the first message, which has that message's
   * id; no such thread (Unknown Channel) means no reply was posted. Pages go back with `before`
   * until they reach messages older than `since`.
   */
  async function threadReplies(ctx: Ctx, guildId: string, rootId: string, since: Date, limit: number) {
    const me = await api<{ id: string }>(ctx, 'GET', '/users/@me');
    const found: Message[] = [];
    let before: string | undefined;
    for (let page = 0; page < MESSAGE_PAGES && found.length < limit; page++) {
      const q = new URLSearchParams({ limit: String(MESSAGE_PAGE), ...(before ? { before } : {}) });
      const res = await send(ctx, 'GET', `/channels/${rootId}/messages?${q.toString()}`);
      const err = discordError(res, ctx.clock.now());
      if (page === 0 && err?.details.platformCode === String(DISCORD_CODES.unknownChannel)) return [];
      if (err) throw err;
      const messages = res.body as Message[];
      found.push(...messages.filter((m) => m.author.id === me.id && m.type !== THREAD_STARTER_MESSAGE && Date.parse(m.timestamp) >= since.getTime()));
      const oldest = messages.at(-1);
      if (messages.length < MESSAGE_PAGE || !oldest || Date.parse(oldest.timestamp) < since.getTime()) break;
      before = oldest.id;
    }
    return found
      .slice(0, limit)
      .map((m) => ({ id: m.id, url: discordMessageUrl(guildId, m.channel_id, m.id), content: m.content, createdAt: new Date(m.timestamp).toISOString() }));
  }

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

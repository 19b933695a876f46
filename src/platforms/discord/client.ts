/**
 * Discord's REST API client (v10, the deployment's bot token): guilds, the target channel, the
 * thread of a reply, messages with attachments and the bot's replies `findRecent` looks for.
 */
import { z } from 'zod';
import { readCredentials } from '../common/credentials.js';
import { mediaFileName } from '../common/media.js';
import { PlatformError, type Credentials, type OperationContext, type PlatformRequest, type PublishItem } from '../platform.js';
import { DISCORD_CODES, discordError, discordResult } from './errors.js';

const API = 'https://discord.com/api/v10';
const CDN = 'https://cdn.discordapp.com';
/** Discord's own cap on `content` (the metadata keeps 20 spare for mentions). */
export const DISCORD_CONTENT_LIMIT = 2000;
/** Channel types the bot can post in: text (0) and announcement (5). */
export const POSTABLE_TYPES = new Set([0, 5]);
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

/** What a Discord channel stores: the server the bot was added to. */
export interface DiscordCredentials {
  guildId: string;
}

export interface Guild {
  id: string;
  name: string;
  icon: string | null;
  system_channel_id: string | null;
}

export interface Channel {
  id: string;
  type: number;
  name?: string;
  position?: number;
  parent_id?: string | null;
}

export interface Message {
  id: string;
  type?: number;
  channel_id: string;
  content: string;
  timestamp: string;
  author: { id: string; bot?: boolean };
}

export type Ctx = Pick<OperationContext, 'http' | 'clock'>;

/** What a Discord channel stores: the server the bot was added to. */
export const DiscordCredentialsSchema = z.object({ guildId: z.string().min(1) });

export const creds = (ctx: { credentials: Credentials }): DiscordCredentials => readCredentials(ctx, DiscordCredentialsSchema, 'Discord');

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

/** The Discord API calls with the deployment's bot token (`botToken` throws when it is not configured). */
export function discordClient(botToken: () => string) {
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

  return { send, api, defaultChannel, targetChannel, ensureThread, postMessage, threadReplies };
}

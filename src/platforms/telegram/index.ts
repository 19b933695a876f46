import { restrictHtml } from '../common/html.js';
import { TelegramCredentialsSchema, telegramMetadata } from './metadata.js';
import { telegramResult } from './errors.js';
import {
  PlatformError,
  type ConnectedAccount,
  type OperationContext,
  type PlatformAdapter,
  type PlatformRequest,
  type PublishItem,
  type PublishResult,
} from '../platform.js';

const API = 'https://api.telegram.org';
const CAPTION_LIMIT = 1024;
const TAGS = ['b', 'i', 'u', 's', 'a', 'code', 'pre', 'blockquote', 'tg-spoiler'] as const;

interface TelegramCredentials {
  botToken: string;
  chatId: string;
  /** public @username of the chat, for post URLs */
  username: string | null;
}

interface Message {
  message_id: number;
  chat: { id: number; username?: string };
}

function creds(ctx: { credentials: Record<string, unknown> }): TelegramCredentials {
  const c = ctx.credentials as Partial<TelegramCredentials>;
  if (!c.botToken || !c.chatId) throw new PlatformError('reconnect_required', 'Stored Telegram credentials are incomplete');
  return { botToken: c.botToken, chatId: c.chatId, username: c.username ?? null };
}

function call(ctx: Pick<OperationContext, 'http'>, token: string, method: string, body: PlatformRequest['body']) {
  return ctx.http.request({ method: 'POST', url: `${API}/bot${token}/${method}`, body });
}

/** Public channels: t.me/<username>/<id>; private ones: t.me/c/<id without -100>/<id>. */
export function telegramPostUrl(chatId: string, username: string | null, messageId: number): string {
  if (username) return `https://t.me/${username}/${messageId}`;
  return `https://t.me/c/${chatId.replace(/^-100/, '').replace(/^-/, '')}/${messageId}`;
}

/** Creates the Telegram adapter: a bot token and a chat; the bot posts as the chat. */
export function createTelegramAdapter(): PlatformAdapter {
  async function sendMedia(ctx: OperationContext, c: TelegramCredentials, item: PublishItem, caption: string | undefined, replyTo?: number): Promise<Message> {
    const form = new FormData();
    form.set('chat_id', c.chatId);
    if (replyTo) form.set('reply_parameters', JSON.stringify({ message_id: replyTo, allow_sending_without_reply: true }));
    if (item.media.length === 1) {
      const m = item.media[0]!;
      const field = m.type === 'video' ? 'video' : 'photo';
      form.set(field, await ctx.openMedia(m), m.id);
      if (caption) {
        form.set('caption', caption);
        form.set('parse_mode', 'HTML');
      }
      return telegramResult<Message>(await call(ctx, c.botToken, m.type === 'video' ? 'sendVideo' : 'sendPhoto', form));
    }
    const media = [];
    for (const [i, m] of item.media.entries()) {
      form.set(`file${i}`, await ctx.openMedia(m), m.id);
      media.push({
        type: m.type === 'video' ? 'video' : 'photo',
        media: `attach://file${i}`,
        ...(i === 0 && caption ? { caption, parse_mode: 'HTML' } : {}),
      });
    }
    form.set('media', JSON.stringify(media));
    const messages = telegramResult<Message[]>(await call(ctx, c.botToken, 'sendMediaGroup', form));
    return messages[0]!;
  }

  async function sendText(ctx: OperationContext, c: TelegramCredentials, text: string, replyTo?: number): Promise<Message> {
    return telegramResult<Message>(
      await call(ctx, c.botToken, 'sendMessage', {
        chat_id: c.chatId,
        text,
        parse_mode: 'HTML',
        ...(replyTo ? { reply_parameters: { message_id: replyTo, allow_sending_without_reply: true } } : {}),
      }),
    );
  }

  return {
    metadata: telegramMetadata,

    async connectWithCredentials(input, ctx): Promise<ConnectedAccount> {
      const { botToken, chatId } = TelegramCredentialsSchema.parse(input);
      let bot: { id: number; username?: string };
      try {
        bot = telegramResult(await call(ctx, botToken, 'getMe', {}));
      } catch (e) {
        if (e instanceof PlatformError && e.kind !== 'transient' && e.kind !== 'rate_limited') {
          throw new PlatformError('rejected', `Telegram refused the bot token: ${e.message}`, { field: 'botToken' });
        }
        throw e;
      }
      let chat: { id: number; title?: string; username?: string; first_name?: string };
      try {
        chat = telegramResult(await call(ctx, botToken, 'getChat', { chat_id: chatId }));
      } catch (e) {
        if (e instanceof PlatformError && e.kind !== 'transient' && e.kind !== 'rate_limited') {
          throw new PlatformError('rejected', `Telegram cannot find this chat for the bot: ${e.message}`, { field: 'chatId' });
        }
        throw e;
      }
      const member = telegramResult<{ status: string; can_post_messages?: boolean }>(
        await call(ctx, botToken, 'getChatMember', { chat_id: chat.id, user_id: bot.id }),
      );
      if (member.status !== 'administrator' && member.status !== 'creator') {
        throw new PlatformError('rejected', `The bot @${bot.username ?? bot.id} must be an administrator of the chat (it is ${member.status})`, { field: 'chatId' });
      }
      return {
        internalId: String(chat.id),
        name: chat.title ?? chat.first_name ?? chat.username ?? String(chat.id),
        profile: chat.username ?? null,
        picture: null,
        credentials: { botToken, chatId: String(chat.id), username: chat.username ?? null } satisfies TelegramCredentials,
        expiresAt: null,
      };
    },

    validate() {
      return [];
    },

    /**
     * Not idempotent (Telegram has no idempotency key): a retried call posts twice. Media go as
     * one message or one media group; a caption over 1,024 characters goes as a text reply.
     */
    async publish({ item, replyTo }, ctx): Promise<PublishResult> {
      const c = creds(ctx);
      const text = restrictHtml(item.content, TAGS);
      const replyId = replyTo ? Number(replyTo.id) : undefined;
      let first: Message;
      if (item.media.length === 0) {
        first = await sendText(ctx, c, text, replyId);
      } else if (text.length <= CAPTION_LIMIT) {
        first = await sendMedia(ctx, c, item, text || undefined, replyId);
      } else {
        first = await sendMedia(ctx, c, item, undefined, replyId);
        await sendText(ctx, c, text, first.message_id);
      }
      return { status: 'published', id: String(first.message_id), url: telegramPostUrl(c.chatId, c.username, first.message_id) };
    },
  };
}

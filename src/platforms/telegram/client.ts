import { telegramResult } from './errors.js';
import type { OperationContext, PlatformRequest, PublishItem } from '../platform.js';

/** The Telegram Bot API as the adapter uses it: `POST /bot<token>/<method>`, answers read by `telegramResult`. */

export const TELEGRAM_API = 'https://api.telegram.org';
export const CAPTION_LIMIT = 1024;

export interface TelegramCredentials {
  botToken: string;
  chatId: string;
  /** public @username of the chat, for post URLs */
  username: string | null;
}

export interface Message {
  message_id: number;
  chat: { id: number; username?: string };
}

export interface Bot {
  id: number;
  username?: string;
}

export interface Chat {
  id: number;
  title?: string;
  username?: string;
  first_name?: string;
}

function call(ctx: Pick<OperationContext, 'http'>, token: string, method: string, body: PlatformRequest['body']) {
  return ctx.http.request({ method: 'POST', url: `${TELEGRAM_API}/bot${token}/${method}`, body });
}

/** `getMe`: the bot the token belongs to. */
export async function getMe(ctx: Pick<OperationContext, 'http'>, token: string): Promise<Bot> {
  return telegramResult(await call(ctx, token, 'getMe', {}));
}

/** `getChat`: the chat by id or @username, as the bot sees it. */
export async function getChat(ctx: Pick<OperationContext, 'http'>, token: string, chatId: string): Promise<Chat> {
  return telegramResult(await call(ctx, token, 'getChat', { chat_id: chatId }));
}

/** `getChatMember`: the user's status in the chat (`administrator`, `creator`, `member`…). */
export async function getChatMember(ctx: Pick<OperationContext, 'http'>, token: string, chatId: number, userId: number) {
  return telegramResult<{ status: string; can_post_messages?: boolean }>(await call(ctx, token, 'getChatMember', { chat_id: chatId, user_id: userId }));
}

/** Public channels: t.me/<username>/<id>; private ones: t.me/c/<id without -100>/<id>. */
export function telegramPostUrl(chatId: string, username: string | null, messageId: number): string {
  if (username) return `https://t.me/${username}/${messageId}`;
  return `https://t.me/c/${chatId.replace(/^-100/, '').replace(/^-/, '')}/${messageId}`;
}

/** The item's media as one message (`sendPhoto`/`sendVideo`) or one media group; the first message. */
export async function sendMedia(ctx: OperationContext, c: TelegramCredentials, item: PublishItem, caption: string | undefined, replyTo?: number): Promise<Message> {
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

/** `sendMessage` with Telegram HTML, as a reply when `replyTo` is given. */
export async function sendText(ctx: Pick<OperationContext, 'http'>, c: TelegramCredentials, text: string, replyTo?: number): Promise<Message> {
  return telegramResult<Message>(
    await call(ctx, c.botToken, 'sendMessage', {
      chat_id: c.chatId,
      text,
      parse_mode: 'HTML',
      ...(replyTo ? { reply_parameters: { message_id: replyTo, allow_sending_without_reply: true } } : {}),
    }),
  );
}

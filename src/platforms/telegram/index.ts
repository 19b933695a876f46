import { z } from 'zod';
import { readCredentials } from '../common/credentials.js';
import { restrictHtml } from '../common/html.js';
import { TelegramCredentialsSchema, telegramMetadata } from './metadata.js';
import { CAPTION_LIMIT, getChat, getChatMember, getMe, sendMedia, sendText, telegramPostUrl, type Bot, type Chat, type Message, type TelegramCredentials } from './client.js';
import { PlatformError, type ConnectedAccount, type Credentials, type PlatformAdapter, type PublishResult } from '../platform.js';

const TAGS = ['b', 'i', 'u', 's', 'a', 'code', 'pre', 'blockquote', 'tg-spoiler'] as const;

/** What a connected channel stores (see `TelegramCredentials`). */
const StoredCredentialsSchema = z.object({
  botToken: z.string().min(1),
  chatId: z.string().min(1),
  username: z
    .string()
    .nullish()
    .transform((v) => v ?? null),
});

const creds = (ctx: { credentials: Credentials }): TelegramCredentials => readCredentials(ctx, StoredCredentialsSchema, 'Telegram');

/** Creates the Telegram adapter: a bot token and a chat; the bot posts as the chat. */
export function createTelegramAdapter(): PlatformAdapter {
  return {
    metadata: telegramMetadata,

    async connectWithCredentials(input, ctx): Promise<ConnectedAccount> {
      const { botToken, chatId } = TelegramCredentialsSchema.parse(input);
      let bot: Bot;
      try {
        bot = await getMe(ctx, botToken);
      } catch (e) {
        if (e instanceof PlatformError && e.kind !== 'transient' && e.kind !== 'rate_limited') {
          throw new PlatformError('rejected', `Telegram refused the bot token: ${e.message}`, { field: 'botToken' });
        }
        throw e;
      }
      let chat: Chat;
      try {
        chat = await getChat(ctx, botToken, chatId);
      } catch (e) {
        if (e instanceof PlatformError && e.kind !== 'transient' && e.kind !== 'rate_limited') {
          throw new PlatformError('rejected', `Telegram cannot find this chat for the bot: ${e.message}`, { field: 'chatId' });
        }
        throw e;
      }
      const member = await getChatMember(ctx, botToken, chat.id, bot.id);
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

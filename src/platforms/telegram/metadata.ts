import { z } from 'zod';
import { MiB } from '../common/schemas.js';
import { anyAttachments, defineMetadata } from '../common/define-metadata.js';

/** `POST /social/telegram`: a bot (admin of the target chat) and the chat to post to. */
export const TelegramCredentialsSchema = z.object({
  botToken: z
    .string({ error: 'Required' })
    .trim()
    .min(1, 'Required')
    .regex(/^\d+:[A-Za-z0-9_-]{30,}$/, 'Must be a bot token from @BotFather (<digits>:<secret>)')
    .describe('bot token from @BotFather; the bot must be an admin of the chat'),
  chatId: z
    .string({ error: 'Required' })
    .trim()
    .min(1, 'Required')
    .regex(/^(?:-?\d+|@[A-Za-z][A-Za-z0-9_]{3,})$/, 'Must be a numeric chat id or an @channelname')
    .describe('numeric chat id (channels: -100…) or @channelname'),
});

export const telegramMetadata = defineMetadata({
  identifier: 'telegram',
  displayName: 'Telegram',
  authKind: 'credentials',
  editor: 'html',
  text: { maxLength: 4096, counting: 'characters' },
  // Up to 10 items in one media group; uploaded photos ≤ 10 MB, other files ≤ 50 MB.
  media: anyAttachments(10, { image: { maxBytes: 10 * MiB }, video: { maxBytes: 50 * MiB } }),
  thread: { supported: true, kind: 'reply' },
  concurrency: { perPlatform: 10 },
  credentials: TelegramCredentialsSchema,
});

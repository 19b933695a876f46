import { z } from 'zod';
import { IMAGE_TYPES, MiB, VIDEO_TYPES } from '../common/schemas.js';
import type { PlatformMetadata } from '../platform.js';

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

export const telegramMetadata: PlatformMetadata = {
  identifier: 'telegram',
  displayName: 'Telegram',
  authKind: 'credentials',
  instanceBased: false,
  editor: 'html',
  text: { maxLength: 4096, counting: 'characters' },
  // Up to 10 items in one media group; uploaded photos ≤ 10 MB, other files ≤ 50 MB.
  media: {
    minItems: 0,
    maxItems: 10,
    image: { maxCount: 10, mimeTypes: IMAGE_TYPES, maxBytes: 10 * MiB },
    video: { maxCount: 10, mimeTypes: VIDEO_TYPES, maxBytes: 50 * MiB },
    mixed: true,
    onThreadItems: true,
  },
  thread: { supported: true, kind: 'reply' },
  asyncProcessing: false,
  concurrency: { perPlatform: 10, perChannel: 1 },
  settings: null,
  credentials: TelegramCredentialsSchema,
  tools: [],
  rules: '',
  analytics: { channel: false, post: false },
};

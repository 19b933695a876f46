import { z } from 'zod';
import { defineMetadata, noMedia } from '../common/define-metadata.js';

/** Twitch chat settings (reference TwitchDto): a plain chat message or a coloured announcement. */
export const TwitchSettingsSchema = z.object({
  messageType: z.enum(['message', 'announcement']).optional(),
  announcementColor: z.enum(['primary', 'blue', 'green', 'orange', 'purple']).optional(),
});

export const twitchMetadata = defineMetadata({
  identifier: 'twitch',
  displayName: 'Twitch',
  authKind: 'oauth2',
  deploymentApp: {
    consoleUrl: 'https://dev.twitch.tv/console/apps',
    app: 'a Twitch application',
  },
  oauth: {
    authorizeUrl: 'https://id.twitch.tv/oauth2/authorize',
    tokenUrl: 'https://id.twitch.tv/oauth2/token',
    scopes: ['user:write:chat', 'user:read:chat', 'moderator:manage:announcements'],
    scopeSeparator: ' ',
    pkce: false,
    refresh: true,
  },
  text: { maxLength: 500, counting: 'characters' },
  // Chat is text only.
  media: noMedia,
  thread: { supported: true, kind: 'reply' },
  // Chat allows 20 messages per 30 s.
  concurrency: { perPlatform: 2 },
  settings: TwitchSettingsSchema,
});

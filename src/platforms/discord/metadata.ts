import { z } from 'zod';
import { MiB, requiredString, NoToolDataSchema } from '../common/schemas.js';
import { anyAttachments, defineMetadata, oauthAppVariables } from '../common/define-metadata.js';

/** Discord post settings (reference DiscordDto): the id of the channel the bot posts in. */
export const DiscordSettingsSchema = z.object({
  channel: requiredString().describe('channel id (from the `channels` tool)'),
});

export const discordMetadata = defineMetadata({
  identifier: 'discord',
  displayName: 'Discord',
  authKind: 'oauth2',
  // The OAuth install adds the app's bot to a guild; posting then uses the bot token.
  deploymentApp: {
    variables: [...oauthAppVariables('discord'), 'DISCORD_BOT_TOKEN'],
    consoleUrl: 'https://discord.com/developers/applications',
    app: 'a Discord application with a bot (the bot token is DISCORD_BOT_TOKEN)',
  },
  oauth: {
    authorizeUrl: 'https://discord.com/oauth2/authorize',
    tokenUrl: 'https://discord.com/api/oauth2/token',
    scopes: ['bot', 'identify', 'guilds'],
    scopeSeparator: ' ',
    pkce: false,
    refresh: true,
  },
  editor: 'markdown',
  // Discord allows 2,000; the reference keeps 20 spare for mentions.
  text: { maxLength: 1980, counting: 'characters' },
  // 10 MiB is the default upload cap for servers without boosts.
  media: anyAttachments(10, { image: { maxBytes: 10 * MiB }, video: { maxBytes: 10 * MiB } }),
  // Comments go into a thread started from the first message.
  thread: { supported: true, kind: 'reply' },
  concurrency: { perPlatform: 5 },
  settings: DiscordSettingsSchema,
  tools: [{ methodName: 'channels', description: 'List the text, announcement and forum channels of the guild', dataSchema: NoToolDataSchema }],
});

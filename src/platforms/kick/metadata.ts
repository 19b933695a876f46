import { z } from 'zod';
import { defineMetadata, noMedia } from '../common/define-metadata.js';

/** Kick takes no post settings (the reference KickDto is empty). */
export const KickSettingsSchema = z.object({});

export const kickMetadata = defineMetadata({
  identifier: 'kick',
  displayName: 'Kick',
  authKind: 'oauth2',
  // OAuth 2.1: PKCE (S256) is mandatory.
  deploymentApp: {
    consoleUrl: 'https://kick.com/settings/developer',
    app: 'a Kick developer app',
  },
  oauth: {
    authorizeUrl: 'https://id.kick.com/oauth/authorize',
    tokenUrl: 'https://id.kick.com/oauth/token',
    scopes: ['user:read', 'channel:read', 'chat:write'],
    scopeSeparator: ' ',
    pkce: true,
    refresh: true,
  },
  text: { maxLength: 500, counting: 'characters' },
  // A chat message: text only.
  media: noMedia,
  thread: { supported: true, kind: 'reply' },
  // Kick documents no rate limits; stay gentle.
  concurrency: { perPlatform: 3 },
  settings: KickSettingsSchema,
});

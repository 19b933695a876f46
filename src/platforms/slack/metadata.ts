import { z } from 'zod';
import { IMAGE_TYPES, VIDEO_TYPES, requiredString, NoToolDataSchema } from '../common/schemas.js';
import type { PlatformMetadata } from '../platform.js';

/** Slack message settings (reference SlackDto): the channel to post in. */
export const SlackSettingsSchema = z.object({
  channel: requiredString().describe('channel id'),
});

export const slackMetadata: PlatformMetadata = {
  identifier: 'slack',
  displayName: 'Slack',
  authKind: 'oauth2',
  deploymentApp: {
    variables: ['SLACK_CLIENT_ID', 'SLACK_CLIENT_SECRET'],
    consoleUrl: 'https://api.slack.com/apps',
    app: 'a Slack app with a bot user',
  },
  oauth: {
    authorizeUrl: 'https://slack.com/oauth/v2/authorize',
    tokenUrl: 'https://slack.com/api/oauth.v2.access',
    // Beyond the reference's list: files:write and files:read (uploads and their share), team:read
    // (workspace name and icon at connect), channels:history and groups:history (findRecent: a
    // channel's messages and a thread's replies, public and private channels).
    scopes: ['channels:read', 'chat:write', 'users:read', 'groups:read', 'channels:join', 'chat:write.customize', 'files:write', 'files:read', 'team:read', 'channels:history', 'groups:history'],
    scopeSeparator: ',',
    pkce: false,
    // Bot tokens do not expire unless the app enables token rotation.
    refresh: false,
  },
  instanceBased: false,
  editor: 'normal',
  text: { maxLength: 400_000, counting: 'characters' },
  media: {
    minItems: 0,
    maxItems: 10,
    image: { maxCount: 10, mimeTypes: IMAGE_TYPES },
    video: { maxCount: 10, mimeTypes: VIDEO_TYPES },
    mixed: true,
    onThreadItems: true,
  },
  thread: { supported: true, kind: 'reply' },
  asyncProcessing: false,
  // chat.postMessage allows about one message per second per channel.
  concurrency: { perPlatform: 5, perChannel: 1 },
  settings: SlackSettingsSchema,
  tools: [{ methodName: 'channels', description: 'Public and private channels of the workspace', dataSchema: NoToolDataSchema }],
  rules: '',
  analytics: { channel: false, post: false },
};

import { z } from 'zod';
import { requiredString, NoToolDataSchema } from '../common/schemas.js';
import { anyAttachments, defineMetadata } from '../common/define-metadata.js';

/** Slack message settings (reference SlackDto): the channel to post in. */
export const SlackSettingsSchema = z.object({
  channel: requiredString().describe('channel id'),
});

export const slackMetadata = defineMetadata({
  identifier: 'slack',
  displayName: 'Slack',
  authKind: 'oauth2',
  deploymentApp: {
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
  text: { maxLength: 400_000, counting: 'characters' },
  media: anyAttachments(10),
  thread: { supported: true, kind: 'reply' },
  // chat.postMessage allows about one message per second per channel.
  concurrency: { perPlatform: 5 },
  settings: SlackSettingsSchema,
  tools: [{ methodName: 'channels', description: 'Public and private channels of the workspace', dataSchema: NoToolDataSchema }],
});

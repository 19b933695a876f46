import { z } from 'zod';
import { requiredString, NoToolDataSchema, requiredHttpUrl, requiredSecret } from '../common/schemas.js';
import { defineMetadata, imagesOnly } from '../common/define-metadata.js';

/** `POST /social/listmonk`: an API user of a self-hosted listmonk (HTTP Basic user:token). */
export const ListmonkCredentialsSchema = z.object({
  instanceUrl: requiredHttpUrl().describe('base URL of the listmonk instance'),
  username: requiredString().describe('API user name (admin user before listmonk v4)'),
  token: requiredSecret().describe('API token (admin password before listmonk v4)'),
});

/** Campaign settings (reference ListmonkDto). */
export const ListmonkSettingsSchema = z.object({
  subject: requiredString().describe('email subject'),
  preview: z.string({ error: 'Required' }).describe('preview text shown by mail clients; may be empty'),
  list: requiredString().regex(/^\d+(\s*,\s*\d+)*$/, 'Must be a list id from the `list` tool (several: comma-separated)').describe('list id (from the `list` tool); several lists: ids separated by commas'),
  template: z
    .string()
    .regex(/^\d*$/, 'Must be a template id from the `templates` tool')
    .optional()
    .describe('template id (from the `templates` tool); the instance\'s default template when absent'),
});

export const listmonkMetadata = defineMetadata({
  identifier: 'listmonk',
  displayName: 'ListMonk',
  appName: 'Listmonk',
  authKind: 'credentials',
  instanceBased: true,
  editor: 'html',
  // An HTML email: no real limit.
  text: { maxLength: 100_000_000, counting: 'characters' },
  // Pictures are placed inline in the HTML body.
  media: imagesOnly(10),
  concurrency: { perPlatform: 2 },
  settings: ListmonkSettingsSchema,
  credentials: ListmonkCredentialsSchema,
  tools: [
    { methodName: 'list', description: 'List the mailing lists', dataSchema: NoToolDataSchema },
    { methodName: 'templates', description: 'List the campaign templates', dataSchema: NoToolDataSchema },
  ],
  // Campaign views and clicks (listmonk's campaign analytics).
  analytics: { post: true },
});

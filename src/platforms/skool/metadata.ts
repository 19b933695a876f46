import { z } from 'zod';
import { requiredString, IdToolDataSchema, NoToolDataSchema, requiredSecret } from '../common/schemas.js';
import { anyAttachments, defineMetadata } from '../common/define-metadata.js';

/** Skool post settings (reference SkoolDto): ids of the group and label, and the post title. */
export const SkoolSettingsSchema = z.object({
  group: requiredString().describe('group id'),
  label: requiredString().describe('label (category) id'),
  title: requiredString(),
});

/**
 * `POST /social/skool`: Skool has no public API; the session cookies of a logged-in browser
 * (domain `.skool.com`) are captured and replayed against Skool's private web API.
 */
const HOW = 'Log in at www.skool.com in a browser, open the developer tools (Application/Storage → Cookies → https://www.skool.com)';
export const SkoolCredentialsSchema = z.object({
  authToken: requiredSecret(
    `Value of the \`auth_token\` cookie of .skool.com. ${HOW} and copy it. Skool has no public API: Tidings uses Skool's private web API with this session, which ends when you log out of Skool (then reconnect with fresh cookies).`,
  ),
  clientId: requiredSecret(`Value of the \`client_id\` cookie of .skool.com, from the same place as auth_token. ${HOW} and copy it.`),
});

/** The rule sentence of `GET /integration-settings`: what is verified and what is assumed. */
export const SKOOL_RULES =
  "Skool has no public API, so nothing here is verified against public documentation: Tidings replays your browser session cookies (auth_token, client_id) against Skool's private web API (api2.skool.com), with the endpoints, fields and error words of a known working implementation; " +
  'assumed: the 5,000-character limit, attachments as uploaded files, post URLs www.skool.com/<group>/<post slug>, the session lasting until you log out. ' +
  "Each post needs a group, a label (\"none\" for a group without labels) and a title; thread items become comments. Skool's refusals (\"must be admin or level …\", \"cannot post to this label\") fail the post with Skool's words; an ended session asks you to reconnect.";

export const skoolMetadata = defineMetadata({
  identifier: 'skool',
  displayName: 'Skool',
  authKind: 'credentials',
  text: { maxLength: 5000, counting: 'characters' },
  // Attachments are uploaded as files; Skool publishes no count or size limit.
  media: anyAttachments(10, { video: { mimeTypes: ['video/mp4'] } }),
  thread: { supported: true, kind: 'comment' },
  concurrency: { perPlatform: 2 },
  settings: SkoolSettingsSchema,
  credentials: SkoolCredentialsSchema,
  tools: [
    { methodName: 'groups', description: 'Groups the account belongs to', dataSchema: NoToolDataSchema },
    { methodName: 'label', description: 'Labels (categories) of a group; data.id is the group id', dataSchema: IdToolDataSchema },
  ],
  rules: SKOOL_RULES,
});

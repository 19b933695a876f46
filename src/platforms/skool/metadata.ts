import { z } from 'zod';
import { IMAGE_TYPES, requiredString } from '../common/schemas.js';
import { IdToolDataSchema, NoToolDataSchema, requiredSecret } from '../common/schemas-b.js';
import type { PlatformMetadata } from '../platform.js';

/** Skool post settings (reference SkoolDto): ids of the group and label, and the post title. */
export const SkoolSettingsSchema = z.object({
  group: requiredString().describe('group id'),
  label: requiredString().describe('label (category) id'),
  title: requiredString(),
});

/**
 * `POST /social/skool`: Skool has no public API; the session cookies of a logged-in browser
 * (domain `.skool.com`) are captured and replayed.
 */
export const SkoolCredentialsSchema = z.object({
  authToken: requiredSecret('value of the `auth_token` cookie of .skool.com'),
  clientId: requiredSecret('value of the `client_id` cookie of .skool.com'),
});

export const skoolMetadata: PlatformMetadata = {
  identifier: 'skool',
  displayName: 'Skool',
  authKind: 'credentials',
  instanceBased: false,
  editor: 'normal',
  text: { maxLength: 5000, counting: 'characters' },
  // Attachments are uploaded as files; Skool publishes no count or size limit.
  media: {
    minItems: 0,
    maxItems: 10,
    image: { maxCount: 10, mimeTypes: IMAGE_TYPES },
    video: { maxCount: 10, mimeTypes: ['video/mp4'] },
    mixed: true,
    onThreadItems: true,
  },
  thread: { supported: true, kind: 'comment' },
  asyncProcessing: false,
  concurrency: { perPlatform: 2, perChannel: 1 },
  settings: SkoolSettingsSchema,
  credentials: SkoolCredentialsSchema,
  tools: [
    { methodName: 'groups', description: 'Groups the account belongs to', dataSchema: NoToolDataSchema },
    { methodName: 'label', description: 'Labels (categories) of a group; data.id is the group id', dataSchema: IdToolDataSchema },
  ],
  rules: '',
  analytics: { channel: false, post: false },
};

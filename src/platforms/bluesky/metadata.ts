import { z } from 'zod';
import { MiB, STILL_IMAGE_TYPES } from '../common/schemas.js';
import { defineMetadata, mediaRules } from '../common/define-metadata.js';

/** `POST /social/bluesky`: an app password login. */
/**
 * The connect form, in the order people fill it in (the app renders the JSON Schema's property
 * order and titles): the handle, the app password, then the server, which almost nobody changes.
 * The field names stay the API's (`identifier`, as atproto's `createSession` calls it).
 */
export const BlueskyCredentialsSchema = z.object({
  identifier: z
    .string()
    .trim()
    .min(1, 'Required')
    .meta({ title: 'Handle', description: 'Your Bluesky handle, or the email address of the account', examples: ['yourname.bsky.social'] }),
  password: z
    .string()
    .min(1, 'Required')
    .meta({ title: 'App password', description: 'An app password made for Tidings in Bluesky (Settings → Privacy and security → App passwords), not your account password' }),
  service: z
    .url({ protocol: /^https?$/ })
    .default('https://bsky.social')
    .meta({ title: 'Service (advanced)', description: 'Optional: the address of your PDS, only if your account is not hosted by Bluesky' }),
});

export const blueskyMetadata = defineMetadata({
  identifier: 'bluesky',
  displayName: 'Bluesky',
  authKind: 'credentials',
  text: { maxLength: 300, counting: 'graphemes' },
  media: mediaRules({
    image: { maxCount: 4, mimeTypes: STILL_IMAGE_TYPES, maxBytes: 1_000_000 },
    video: { maxCount: 1, mimeTypes: ['video/mp4'], maxBytes: 100 * MiB, maxDurationSeconds: 180 },
    onThreadItems: true,
  }),
  thread: { supported: true, kind: 'reply' },
  asyncProcessing: true,
  concurrency: { perPlatform: 5 },
  credentials: BlueskyCredentialsSchema,
  rules: 'Bluesky can have up to 4 pictures or 1 video per post, and may be text only.',
  analytics: { channel: true, post: true },
});

import { z } from 'zod';
import { MiB, STILL_IMAGE_TYPES } from '../common/schemas.js';
import type { PlatformMetadata } from '../platform.js';

/** `POST /social/bluesky`: an app password login. */
export const BlueskyCredentialsSchema = z.object({
  service: z.url({ protocol: /^https?$/ }).default('https://bsky.social').describe('PDS or entryway URL'),
  identifier: z.string().trim().min(1, 'Required').describe('handle or email'),
  password: z.string().min(1, 'Required').describe('an app password (Settings → App passwords)'),
});

export const blueskyMetadata: PlatformMetadata = {
  identifier: 'bluesky',
  displayName: 'Bluesky',
  authKind: 'credentials',
  instanceBased: false,
  editor: 'normal',
  text: { maxLength: 300, counting: 'graphemes' },
  media: {
    minItems: 0,
    maxItems: 4,
    image: { maxCount: 4, mimeTypes: STILL_IMAGE_TYPES, maxBytes: 1_000_000 },
    video: { maxCount: 1, mimeTypes: ['video/mp4'], maxBytes: 100 * MiB, maxDurationSeconds: 180 },
    mixed: false,
    onThreadItems: true,
  },
  thread: { supported: true, kind: 'reply' },
  asyncProcessing: true,
  concurrency: { perPlatform: 5, perChannel: 1 },
  settings: null,
  credentials: BlueskyCredentialsSchema,
  tools: [],
  rules: 'Bluesky can have up to 4 pictures or 1 video per post, and may be text only.',
  analytics: { channel: true, post: true },
};

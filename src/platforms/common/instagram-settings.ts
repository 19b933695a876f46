import { z } from 'zod';
import { MiB, VIDEO_TYPES, requiredString } from './schemas.js';
import type { MediaRules } from '../platform.js';
import type { MetadataFacts } from './define-metadata.js';

const volume = z.number().min(0).max(100);

/**
 * Instagram post settings (reference InstagramDto), shared with `instagram-standalone`. A single
 * video on a `post` is published as a reel.
 */
export const InstagramSettingsSchema = z.object({
  post_type: z.enum(['post', 'story'], { error: 'Required' }),
  is_trial_reel: z.boolean().optional(),
  graduation_strategy: z.enum(['MANUAL', 'SS_PERFORMANCE']).optional(),
  collaborators: z.array(z.object({ label: z.string() })).optional().describe('usernames to invite as collaborators'),
  audio: z
    .object({
      id: requiredString(),
      title: z.string().optional(),
      artist: z.string().optional(),
      image: z.string().optional(),
      audio_volume: volume.optional(),
      video_volume: volume.optional(),
    })
    .optional()
    .describe('licensed audio for a single-video reel (from the `audioSearch` tool)'),
});

/**
 * Media rules of both Instagram flavours: at least one item, a carousel of up to 10, reels up to
 * 15 minutes. Instagram pulls each file from its public URL and publishes JPEG pictures only
 * ("Only JPEG images can be published"): a PNG or WebP picture is handed to it as the URL of its
 * JPEG rendition (`platformTypes`, `core/media/renditions.ts`). Pictures must be at most 8 MB as
 * uploaded; Instagram scales widths itself. The aspect ratio depends on the post type (feed 4:5
 * to 1.91:1, stories any) and is checked by `validate`, like the single item of a story.
 */
export const INSTAGRAM_MEDIA: MediaRules = {
  minItems: 1,
  maxItems: 10,
  image: { maxCount: 10, mimeTypes: ['image/jpeg', 'image/png', 'image/webp'], platformTypes: ['image/jpeg'], maxBytes: 8 * MiB, pulled: true },
  video: { maxCount: 10, mimeTypes: VIDEO_TYPES, maxBytes: 300 * MiB, maxDurationSeconds: 15 * 60 },
  mixed: true,
  // Comments are text only.
  onThreadItems: false,
};

export const INSTAGRAM_RULES =
  'Instagram needs at least one picture or video per post, up to 10 in a carousel; a story takes a single picture or video.';

/**
 * How an Instagram post is written and published, the same through Facebook Login (`instagram`)
 * and Instagram Login (`instagram-standalone`): both go through `instagram-publishing.ts`.
 */
export const INSTAGRAM_POSTING = {
  text: { maxLength: 2200, counting: 'characters' },
  media: INSTAGRAM_MEDIA,
  thread: { supported: true, kind: 'comment' },
  // Containers are processed before they can be published.
  asyncProcessing: true,
  // The per-account publishing quota (rolling 24 h) is the real limit; keep bursts small.
  concurrency: { perPlatform: 5 },
  settings: InstagramSettingsSchema,
  rules: INSTAGRAM_RULES,
  analytics: { channel: true, post: true },
} satisfies Partial<MetadataFacts>;

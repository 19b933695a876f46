import { z } from 'zod';
import { IMAGE_TYPES, MiB } from './schemas.js';
import type { MediaRules } from '../platform.js';

/**
 * LinkedIn post settings (reference LinkedinDto), shared with `linkedin-page`. With
 * `post_as_images_carousel` the pictures are sent as one PDF document titled `carousel_name`.
 */
export const LinkedinSettingsSchema = z.object({
  post_as_images_carousel: z.boolean().optional(),
  carousel_name: z.string().optional().describe('title of the carousel document'),
});

/** Media rules of a LinkedIn post (profile or page): up to 20 pictures or one video. */
export const LINKEDIN_MEDIA: MediaRules = {
  minItems: 0,
  maxItems: 20,
  image: { maxCount: 20, mimeTypes: IMAGE_TYPES, platformTypes: ['image/jpeg', 'image/png', 'image/gif'], maxBytes: 5 * MiB, maxPixels: 36_152_319 },
  video: { maxCount: 1, mimeTypes: ['video/mp4'], maxBytes: 500 * MiB, maxDurationSeconds: 30 * 60 },
  mixed: false,
  // Comments are text only.
  onThreadItems: false,
};

export const LINKEDIN_RULES =
  'A LinkedIn post can carry up to 20 pictures or one video, never both; a carousel needs at least two pictures and no video, and comments are text only.';

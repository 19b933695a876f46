import { z } from 'zod';

/** MIME types most platforms accept. */
export const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'] as const;
export const STILL_IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/webp'] as const;
export const VIDEO_TYPES = ['video/mp4', 'video/quicktime'] as const;

export const MiB = 1024 * 1024;

/** A media item reference inside settings (`thumbnail`, `main_image`, `article_cover`…). */
export const MediaRefSchema = z.object({
  id: z.string().min(1),
  path: z.string().min(1),
  alt: z.string().optional(),
  thumbnail: z.string().optional(),
});

/** `{ value, label }` options as the reference's clients send tags. */
export const LabelledOptionSchema = z.object({ value: z.string(), label: z.string() });

/** A URL, or the reference's `(post:…)` placeholder that is replaced by a published post's URL. */
export const UrlOrPostPlaceholder = z.union([z.url(), z.string().regex(/^\(post:[^)]+\)$/, 'Invalid URL')]);

/** A required non-empty string with the message clients expect. */
export const requiredString = (message = 'Required') => z.string({ error: message }).trim().min(1, message);

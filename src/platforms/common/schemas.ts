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

/** Required text of at least `min` characters, as typed (titles, subtitles, names in article and community settings). */
export const requiredText = (min: number) => z.string({ error: 'Required' }).min(min, `Must be at least ${min} characters`);

/**
 * A secret typed or pasted by the user (password, token, API key): required, surrounding
 * whitespace removed — a pasted key often carries a trailing newline or space, and no platform's
 * secrets start or end with one; all-space input is refused as "Required".
 */
export const requiredSecret = (description?: string) => {
  const secret = z.string({ error: 'Required' }).trim().min(1, 'Required');
  return description === undefined ? secret : secret.describe(description);
};

/** An http(s) URL. */
export const HttpUrl = z.url({ protocol: /^https?$/ });

/** A required http(s) URL: "Required" when missing, a URL message when malformed. */
export const requiredHttpUrl = (message = 'Must be an http(s) URL') =>
  z.url({ protocol: /^https?$/, error: (issue) => (issue.input === undefined ? 'Required' : message) });

/** `data` of a tool that takes no input (lists boards, channels, companies…; `{}` or absent). */
export const NoToolDataSchema = z.object({});

/** `data` of a search tool that looks up a keyword (`{ word }`). */
export const WordSearchDataSchema = z.object({ word: z.string() });

/** `data` of a tool scoped to a parent object by its id (`{ id }`). */
export const IdToolDataSchema = z.object({ id: z.string().min(1) });

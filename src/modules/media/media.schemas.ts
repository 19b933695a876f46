import { z } from 'zod';
import { pageSchema } from '../../lib/pagination.js';

export const MediaItemSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    originalName: z.string().nullable(),
    path: z.string(),
    thumbnail: z.string().nullable(),
    alt: z.string().nullable(),
    type: z.enum(['image', 'video', 'audio']),
    mimeType: z.string(),
    size: z.number().int(),
    width: z.number().int().nullable(),
    height: z.number().int().nullable(),
    duration: z.number().nullable().describe('seconds (videos)'),
    // Not in API.md §4 (an extension, like the webhook routes): what a client needs to know
    // whether a platform will play the video without downloading it.
    codecs: z.string().nullable().describe('videos: RFC 6381 codecs of the tracks, comma-separated, e.g. `avc1.64001f,mp4a.40.2`'),
  })
  .meta({ id: 'MediaItem' });

export type MediaItem = z.infer<typeof MediaItemSchema>;

export const MediaPageSchema = pageSchema('media', MediaItemSchema);

export const MediaParamsSchema = z.object({ id: z.string() });

export const UploadFromUrlBodySchema = z.object({
  url: z.string().min(1).max(8192).describe('a public http(s) URL of an image or video; the type is sniffed from the bytes, no extension needed'),
});

export const MediaUsesSchema = z.object({
  posts: z
    .array(
      z.object({
        postId: z.string().describe('the post to open (for a thread item, its first post)'),
        threadItem: z.boolean(),
        state: z.enum(['DRAFT', 'QUEUE', 'PUBLISHED', 'ERROR']),
        publishDate: z.iso.datetime(),
        integration: z.object({ id: z.string(), name: z.string(), identifier: z.string() }),
      }),
    )
    .describe('newest publish date first, at most 200'),
  blocksDelete: z.boolean().describe('a draft or queued post uses it: DELETE answers 409 until they drop it'),
});

import { basename, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { TiktokSettingsSchema, tiktokMetadata } from './metadata.js';

const folder = basename(dirname(fileURLToPath(import.meta.url)));

/** Paths of the issues zod reports for `input` (empty when it parses). */
function issuePaths(schema: z.ZodType, input: unknown): PropertyKey[][] {
  const result = schema.safeParse(input);
  return result.success ? [] : result.error.issues.map((i) => i.path);
}
const good = {
  __type: 'tiktok',
  title: 'Sourdough in 60 seconds',
  privacy_level: 'PUBLIC_TO_EVERYONE',
  duet: false,
  stitch: true,
  comment: true,
  autoAddMusic: 'no',
  brand_content_toggle: false,
  brand_organic_toggle: false,
  video_made_with_ai: false,
  content_posting_method: 'DIRECT_POST',
};

describe('tiktok metadata', () => {
  it('is the tiktok OAuth platform', () => {
    expect(tiktokMetadata.identifier).toBe(folder);
    expect(tiktokMetadata.oauth?.tokenUrl).toBe('https://open.tiktokapis.com/v2/oauth/token/');
    expect(tiktokMetadata.text.maxLength).toBe(2000);
    expect(tiktokMetadata.thread.supported).toBe(false);
    expect(tiktokMetadata.asyncProcessing).toBe(true);
    expect(tiktokMetadata.rules).not.toBe('');
  });

  it('needs a video alone or up to 35 pictures', () => {
    expect(tiktokMetadata.media).toMatchObject({ minItems: 1, maxItems: 35, mixed: false });
    expect(tiktokMetadata.media.video?.maxCount).toBe(1);
    expect(tiktokMetadata.media.image?.maxCount).toBe(35);
    // TikTok pulls pictures and takes no PNG: a PNG goes as its JPEG rendition.
    expect(tiktokMetadata.media.image).toMatchObject({ mimeTypes: ['image/jpeg', 'image/webp', 'image/png'], platformTypes: ['image/jpeg', 'image/webp'], pulled: true });
  });

  it('asks for PKCE (TikTok’s Login Kit requires it) and offers the creatorInfo tool', () => {
    expect(tiktokMetadata.oauth).toMatchObject({ pkce: true, refresh: true, scopeSeparator: ',' });
    expect(tiktokMetadata.tools.map((t) => t.methodName)).toEqual(['creatorInfo']);
  });

  it('accepts a realistic direct post, with optional music and location', () => {
    const parsed = TiktokSettingsSchema.parse({
      ...good,
      music: { id: 'm1', title: 'Song', audio_volume: 80, video_volume: 20 },
      location: { id: 'loc1', name: 'Lisbon' },
    });
    expect(parsed.privacy_level).toBe('PUBLIC_TO_EVERYONE');
    expect(parsed.music?.audio_volume).toBe(80);
    expect(parsed).not.toHaveProperty('__type');
  });

  it('names the offending field', () => {
    expect(issuePaths(TiktokSettingsSchema, { ...good, privacy_level: 'FRIENDS' })).toEqual([['privacy_level']]);
    expect(issuePaths(TiktokSettingsSchema, { ...good, duet: 'yes' })).toEqual([['duet']]);
    expect(issuePaths(TiktokSettingsSchema, { ...good, title: 'a'.repeat(91) })).toEqual([['title']]);
    expect(issuePaths(TiktokSettingsSchema, { ...good, content_posting_method: undefined })).toEqual([['content_posting_method']]);
    expect(issuePaths(TiktokSettingsSchema, { ...good, music: { id: 'm1', audio_volume: 150 } })).toEqual([['music', 'audio_volume']]);
  });
});

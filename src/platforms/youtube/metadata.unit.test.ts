import { basename, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { YoutubeSettingsSchema, youtubeMetadata, youtubeTagsLength } from './metadata.js';

const folder = basename(dirname(fileURLToPath(import.meta.url)));

/** Paths of the issues zod reports for `input` (empty when it parses). */
function issuePaths(schema: z.ZodType, input: unknown): PropertyKey[][] {
  const result = schema.safeParse(input);
  return result.success ? [] : result.error.issues.map((i) => i.path);
}
const good = {
  __type: 'youtube',
  title: 'How we schedule posts',
  type: 'unlisted',
  selfDeclaredMadeForKids: 'no',
  thumbnail: { id: 'm_9', path: 'https://cdn.example.com/thumb.jpg' },
  tags: [
    { value: 'scheduling', label: 'scheduling' },
    { value: 'social media', label: 'social media' },
  ],
};

describe('youtube metadata', () => {
  it('is the YouTube Google OAuth platform', () => {
    expect(youtubeMetadata.identifier).toBe(folder);
    expect(youtubeMetadata.oauth).toMatchObject({ tokenUrl: 'https://oauth2.googleapis.com/token', refresh: true });
    expect(youtubeMetadata.oauth?.scopes).toContain('https://www.googleapis.com/auth/youtube.upload');
    expect(youtubeMetadata.thread).toEqual({ supported: true, kind: 'comment' });
    expect(youtubeMetadata.oauth?.pkce).toBe(true);
    expect(youtubeMetadata.tools.map((t) => t.methodName)).toEqual(['channels']);
    expect(youtubeMetadata.rules).not.toBe('');
  });

  it('needs exactly one mp4 video', () => {
    expect(youtubeMetadata.media).toMatchObject({ minItems: 1, maxItems: 1, mixed: false });
    expect(youtubeMetadata.media.video?.mimeTypes).toEqual(['video/mp4']);
    expect(youtubeMetadata.media.image).toBeUndefined();
  });

  it('accepts a realistic upload', () => {
    const parsed = YoutubeSettingsSchema.parse(good);
    expect(parsed).toMatchObject({ title: 'How we schedule posts', type: 'unlisted', selfDeclaredMadeForKids: 'no' });
    expect(parsed.tags).toHaveLength(2);
  });

  it('names the offending field', () => {
    expect(issuePaths(YoutubeSettingsSchema, { ...good, title: 'x' })).toEqual([['title']]);
    expect(issuePaths(YoutubeSettingsSchema, { ...good, type: 'draft' })).toEqual([['type']]);
    expect(issuePaths(YoutubeSettingsSchema, { ...good, selfDeclaredMadeForKids: true })).toEqual([['selfDeclaredMadeForKids']]);
    expect(issuePaths(YoutubeSettingsSchema, { ...good, tags: [{ value: 'a' }] })).toEqual([['tags', 0, 'label']]);
  });

  it('takes the optional category, scheduled time, Shorts and notification settings; publishAt needs a private video', () => {
    const scheduled = { ...good, type: 'private', categoryId: '28', publishAt: '2026-12-01T10:00:00+01:00', short: true, notifySubscribers: false };
    expect(issuePaths(YoutubeSettingsSchema, scheduled)).toEqual([]);
    expect(issuePaths(YoutubeSettingsSchema, { ...scheduled, type: 'public' })).toEqual([['type']]);
    expect(issuePaths(YoutubeSettingsSchema, { ...scheduled, publishAt: 'tomorrow' })).toEqual([['publishAt']]);
    expect(issuePaths(YoutubeSettingsSchema, { ...scheduled, categoryId: 'music' })).toEqual([['categoryId']]);
    expect(issuePaths(YoutubeSettingsSchema, { ...scheduled, short: 'yes' })).toEqual([['short']]);
  });

  it('counts tags with whitespace two characters more', () => {
    expect(youtubeTagsLength([{ label: 'ab' }, { label: 'a b' }])).toBe(2 + 3 + 2);
    // 100 tags of "abcd" total 400: fine. 100 tags of "ab cd" total 700: too long.
    const tags = (label: string, n: number) => Array.from({ length: n }, () => ({ value: label, label }));
    expect(issuePaths(YoutubeSettingsSchema, { ...good, tags: tags('abcd', 100) })).toEqual([]);
    expect(issuePaths(YoutubeSettingsSchema, { ...good, tags: tags('abcd', 125) })).toEqual([]);
    expect(issuePaths(YoutubeSettingsSchema, { ...good, tags: [...tags('abcd', 125), { value: 'x', label: 'x' }] })).toEqual([['tags']]);
    expect(issuePaths(YoutubeSettingsSchema, { ...good, tags: tags('ab cd', 72) })).toEqual([['tags']]);
  });
});

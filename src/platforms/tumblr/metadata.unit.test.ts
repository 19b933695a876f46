import { basename, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { TumblrSettingsSchema, tumblrMetadata } from './metadata.js';

const folder = basename(dirname(fileURLToPath(import.meta.url)));

/** Paths of the issues zod reports for `input` (empty when it parses). */
function issuePaths(schema: z.ZodType, input: unknown): PropertyKey[][] {
  const result = schema.safeParse(input);
  return result.success ? [] : result.error.issues.map((i) => i.path);
}
describe('tumblr metadata', () => {
  it('is the tumblr OAuth platform', () => {
    expect(tumblrMetadata.identifier).toBe(folder);
    expect(tumblrMetadata.oauth).toMatchObject({ tokenUrl: 'https://api.tumblr.com/v2/oauth2/token', refresh: true });
    expect(tumblrMetadata.oauth?.scopes).toContain('offline_access');
    expect(tumblrMetadata.text.maxLength).toBe(32_768);
    expect(tumblrMetadata.media.image?.maxCount).toBe(30);
    expect(tumblrMetadata.media.video?.maxCount).toBe(1);
    expect(tumblrMetadata.thread.supported).toBe(false);
  });

  it('accepts all-optional settings', () => {
    expect(TumblrSettingsSchema.parse({ __type: 'tumblr' })).toEqual({});
    const input = { title: 'Hello', link: 'https://example.com', sourceUrl: 'https://source.example.com/a', tags: 'art,ink', state: 'queue' };
    expect(TumblrSettingsSchema.parse(input)).toEqual(input);
  });

  it('names the offending field', () => {
    expect(issuePaths(TumblrSettingsSchema, { title: '' })).toEqual([['title']]);
    expect(issuePaths(TumblrSettingsSchema, { sourceUrl: 'example' })).toEqual([['sourceUrl']]);
    expect(issuePaths(TumblrSettingsSchema, { tags: 't'.repeat(4097) })).toEqual([['tags']]);
    expect(issuePaths(TumblrSettingsSchema, { state: 'publish' })).toEqual([['state']]);
  });

  it('has the blogs tool and post analytics (note counts)', () => {
    expect(tumblrMetadata.tools.map((t) => t.methodName)).toEqual(['blogs']);
    expect(tumblrMetadata.analytics).toEqual({ channel: false, post: true });
  });
});

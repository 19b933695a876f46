import { basename, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { WrapcastSettingsSchema, wrapcastMetadata } from './metadata.js';

const folder = basename(dirname(fileURLToPath(import.meta.url)));

/** Paths of the issues zod reports for `input` (empty when it parses). */
function issuePaths(schema: z.ZodType, input: unknown): PropertyKey[][] {
  const result = schema.safeParse(input);
  return result.success ? [] : result.error.issues.map((i) => i.path);
}
describe('wrapcast metadata', () => {
  it('is the Farcaster platform, connected through Sign in with Neynar, counting bytes', () => {
    expect(wrapcastMetadata.identifier).toBe(folder);
    expect(wrapcastMetadata.displayName).toBe('Farcaster');
    expect(wrapcastMetadata.authKind).toBe('oauth2');
    expect(wrapcastMetadata.oauth).toMatchObject({ authorizeUrl: 'https://app.neynar.com/login', refresh: false, callbackCodeParam: 'signer_uuid' });
    expect(wrapcastMetadata.text.maxLength).toBe(320);
    expect(wrapcastMetadata.text.counting).toBe('bytes');
    expect(wrapcastMetadata.rules).not.toBe('');
  });

  it('takes pictures only, two at most', () => {
    expect(wrapcastMetadata.media.maxItems).toBe(2);
    expect(wrapcastMetadata.media.image?.maxCount).toBe(2);
    expect(wrapcastMetadata.media.video).toBeUndefined();
    expect(wrapcastMetadata.media.image?.pulled).toBe(true);
  });

  it('accepts one channel, or none', () => {
    const parsed = WrapcastSettingsSchema.parse({ __type: 'wrapcast', subreddit: [{ value: { id: 'dev' } }] });
    expect(parsed.subreddit?.map((s) => s.value.id)).toEqual(['dev']);
    expect(WrapcastSettingsSchema.safeParse({ subreddit: [] }).success).toBe(true);
    expect(WrapcastSettingsSchema.safeParse({}).success).toBe(true);
  });

  it('names the offending field', () => {
    expect(issuePaths(WrapcastSettingsSchema, { subreddit: [{ value: {} }] })).toEqual([['subreddit', 0, 'value', 'id']]);
    expect(issuePaths(WrapcastSettingsSchema, { subreddit: 'dev' })).toEqual([['subreddit']]);
    expect(issuePaths(WrapcastSettingsSchema, { subreddit: [{ value: { id: 'dev' } }, { value: { id: 'memes' } }] })).toEqual([['subreddit']]);
  });

  it('subreddits searches channels by word', () => {
    expect(wrapcastMetadata.tools[0]?.methodName).toBe('subreddits');
    expect(issuePaths(wrapcastMetadata.tools[0]!.dataSchema, {})).toEqual([['word']]);
  });
});

import { basename, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { WrapcastCredentialsSchema, WrapcastSettingsSchema, wrapcastMetadata } from './metadata.js';

const folder = basename(dirname(fileURLToPath(import.meta.url)));

/** Paths of the issues zod reports for `input` (empty when it parses). */
function issuePaths(schema: z.ZodType, input: unknown): PropertyKey[][] {
  const result = schema.safeParse(input);
  return result.success ? [] : result.error.issues.map((i) => i.path);
}
describe('wrapcast metadata', () => {
  it('is the Farcaster credential platform counting bytes', () => {
    expect(wrapcastMetadata.identifier).toBe(folder);
    expect(wrapcastMetadata.displayName).toBe('Farcaster');
    expect(wrapcastMetadata.authKind).toBe('credentials');
    expect(wrapcastMetadata.text.counting).toBe('bytes');
    expect(wrapcastMetadata.rules).not.toBe('');
  });

  it('takes pictures only, two at most', () => {
    expect(wrapcastMetadata.media.maxItems).toBe(2);
    expect(wrapcastMetadata.media.image?.maxCount).toBe(2);
    expect(wrapcastMetadata.media.video).toBeUndefined();
  });

  it('accepts channels, or none', () => {
    const parsed = WrapcastSettingsSchema.parse({ __type: 'wrapcast', subreddit: [{ value: { id: 'dev' } }, { value: { id: 'memes' } }] });
    expect(parsed.subreddit.map((s) => s.value.id)).toEqual(['dev', 'memes']);
    expect(WrapcastSettingsSchema.safeParse({ subreddit: [] }).success).toBe(true);
  });

  it('names the offending field', () => {
    expect(issuePaths(WrapcastSettingsSchema, { subreddit: [{ value: { id: 'dev' } }, { value: {} }] })).toEqual([['subreddit', 1, 'value', 'id']]);
    expect(issuePaths(WrapcastSettingsSchema, { subreddit: 'dev' })).toEqual([['subreddit']]);
  });

  it('takes a Neynar signer and an optional API key', () => {
    const body = { signerUuid: '19d0c5fd-9b33-4a48-a0e2-bc7b0555baa6', apiKey: 'NEYNAR_KEY_1' };
    expect(WrapcastCredentialsSchema.parse(body)).toEqual(body);
    expect(WrapcastCredentialsSchema.safeParse({ signerUuid: body.signerUuid }).success).toBe(true);
    expect(issuePaths(WrapcastCredentialsSchema, { signerUuid: 'abc' })).toEqual([['signerUuid']]);
    const missing = WrapcastCredentialsSchema.safeParse({});
    expect(missing.error?.issues).toMatchObject([{ path: ['signerUuid'], message: 'Required' }]);
  });

  it('subreddits searches channels by word', () => {
    expect(wrapcastMetadata.tools[0]?.methodName).toBe('subreddits');
    expect(issuePaths(wrapcastMetadata.tools[0]!.dataSchema, {})).toEqual([['word']]);
  });
});

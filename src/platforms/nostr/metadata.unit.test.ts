import { basename, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { NostrCredentialsSchema, nostrMetadata } from './metadata.js';

const folder = basename(dirname(fileURLToPath(import.meta.url)));

/** Paths of the issues zod reports for `input` (empty when it parses). */
function issuePaths(schema: z.ZodType, input: unknown): PropertyKey[][] {
  const result = schema.safeParse(input);
  return result.success ? [] : result.error.issues.map((i) => i.path);
}
const HEX_KEY = '7f3b8a2c91d04e5f6a7b8c9d0e1f2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b';
const NSEC = 'nsec1vl029mgpspedva04g90vltkh6fvh240zqtv9k0t9af8935ke9laqsnlfe5';

describe('nostr metadata', () => {
  it('is the nostr credential platform without settings', () => {
    expect(nostrMetadata.identifier).toBe(folder);
    expect(nostrMetadata.authKind).toBe('credentials');
    expect(nostrMetadata.settings).toBeNull();
    expect(nostrMetadata.thread).toEqual({ supported: true, kind: 'reply' });
    expect(nostrMetadata.text.maxLength).toBe(100_000);
  });

  it('accepts a hex or nsec key with optional relays', () => {
    expect(NostrCredentialsSchema.parse({ privateKey: HEX_KEY })).toEqual({ privateKey: HEX_KEY });
    const parsed = NostrCredentialsSchema.parse({ privateKey: NSEC, relays: ['wss://relay.damus.io', 'wss://nos.lol'] });
    expect(parsed.relays).toEqual(['wss://relay.damus.io', 'wss://nos.lol']);
  });

  it('refuses a missing or malformed key', () => {
    const missing = NostrCredentialsSchema.safeParse({});
    expect(missing.error?.issues[0]).toMatchObject({ path: ['privateKey'], message: expect.stringMatching(/^Required: paste a secret key .* or send generate: true/) });
    expect(issuePaths(NostrCredentialsSchema, { privateKey: '' })).toContainEqual(['privateKey']);
    expect(issuePaths(NostrCredentialsSchema, { privateKey: HEX_KEY.slice(1) })).toEqual([['privateKey']]);
    expect(issuePaths(NostrCredentialsSchema, { privateKey: 'npub1vl029mgpspedva04g90vltkh6fvh240zqtv9k0t9af8935ke9laqsnlfe5' })).toEqual([['privateKey']]);
  });

  it('takes generate: true instead of a key, but not both', () => {
    expect(NostrCredentialsSchema.parse({ generate: true })).toEqual({ generate: true });
    expect(issuePaths(NostrCredentialsSchema, { generate: false })).toEqual([['privateKey']]);
    expect(issuePaths(NostrCredentialsSchema, { generate: 'yes' })).toContainEqual(['generate']);
    expect(issuePaths(NostrCredentialsSchema, { privateKey: HEX_KEY, generate: true })).toEqual([['generate']]);
  });

  it('refuses relays that are not wss URLs, and an empty list', () => {
    expect(issuePaths(NostrCredentialsSchema, { privateKey: HEX_KEY, relays: [] })).toEqual([['relays']]);
    expect(issuePaths(NostrCredentialsSchema, { privateKey: HEX_KEY, relays: ['wss://nos.lol', 'https://relay.damus.io'] })).toEqual([
      ['relays', 1],
    ]);
  });
});

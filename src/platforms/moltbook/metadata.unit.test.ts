import { basename, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { MoltbookCredentialsSchema, MoltbookSettingsSchema, moltbookMetadata } from './metadata.js';

const folder = basename(dirname(fileURLToPath(import.meta.url)));

/** Paths of the issues zod reports for `input` (empty when it parses). */
function issuePaths(schema: z.ZodType, input: unknown): PropertyKey[][] {
  const result = schema.safeParse(input);
  return result.success ? [] : result.error.issues.map((i) => i.path);
}
describe('moltbook metadata', () => {
  it('is the moltbook credential platform', () => {
    expect(moltbookMetadata.identifier).toBe(folder);
    expect(moltbookMetadata.authKind).toBe('credentials');
    expect(moltbookMetadata.text).toEqual({ maxLength: 300, counting: 'characters' });
    expect(moltbookMetadata.media.maxItems).toBe(0);
  });

  it('accepts a submolt and keeps it', () => {
    const parsed = MoltbookSettingsSchema.parse({ __type: 'moltbook', submolt: 'general' });
    expect(parsed).toEqual({ submolt: 'general' });
  });

  it('refuses a missing or blank submolt', () => {
    expect(issuePaths(MoltbookSettingsSchema, { __type: 'moltbook' })).toEqual([['submolt']]);
    expect(issuePaths(MoltbookSettingsSchema, { submolt: '   ' })).toEqual([['submolt']]);
  });

  it('takes an API key as credentials', () => {
    expect(MoltbookCredentialsSchema.parse({ apiKey: ' moltbook_abc123 ' })).toEqual({ apiKey: 'moltbook_abc123' });
    const result = MoltbookCredentialsSchema.safeParse({});
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]).toMatchObject({ path: ['apiKey'], message: 'Required' });
  });
});

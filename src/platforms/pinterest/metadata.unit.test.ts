import { basename, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { PinterestSettingsSchema, pinterestMetadata } from './metadata.js';

const folder = basename(dirname(fileURLToPath(import.meta.url)));

/** Paths of the issues zod reports for `input` (empty when it parses). */
function issuePaths(schema: z.ZodType, input: unknown): PropertyKey[][] {
  const result = schema.safeParse(input);
  return result.success ? [] : result.error.issues.map((i) => i.path);
}
describe('pinterest metadata', () => {
  it('is the pinterest OAuth platform', () => {
    expect(pinterestMetadata.identifier).toBe(folder);
    expect(pinterestMetadata.authKind).toBe('oauth2');
    expect(pinterestMetadata.oauth?.scopes).toContain('pins:write');
    expect(pinterestMetadata.media).toMatchObject({ minItems: 1, maxItems: 5 });
    expect(pinterestMetadata.tools.map((t) => t.methodName)).toEqual(['boards']);
    expect(pinterestMetadata.rules).not.toBe('');
  });

  it('accepts a realistic pin', () => {
    const input = {
      __type: 'pinterest',
      board: '1020276715534519295',
      title: 'Autumn soup',
      link: 'https://example.com/recipes/soup',
      dominant_color: '#aa5500',
    };
    expect(PinterestSettingsSchema.parse(input)).toEqual({
      board: '1020276715534519295',
      title: 'Autumn soup',
      link: 'https://example.com/recipes/soup',
      dominant_color: '#aa5500',
    });
  });

  it('requires a board', () => {
    const result = PinterestSettingsSchema.safeParse({ title: 'x' });
    expect(result.error?.issues).toMatchObject([{ path: ['board'], message: 'Board is required' }]);
    expect(issuePaths(PinterestSettingsSchema, { board: '' })).toEqual([['board']]);
  });

  it('refuses a long title and a bad link', () => {
    expect(issuePaths(PinterestSettingsSchema, { board: '1', title: 'a'.repeat(101) })).toEqual([['title']]);
    expect(issuePaths(PinterestSettingsSchema, { board: '1', link: 'not a url' })).toEqual([['link']]);
  });

  it('boards takes no data', () => {
    expect(pinterestMetadata.tools[0]?.dataSchema.safeParse({}).success).toBe(true);
  });
});

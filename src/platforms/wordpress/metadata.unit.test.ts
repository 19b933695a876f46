import { basename, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { WordpressCredentialsSchema, WordpressSettingsSchema, wordpressMetadata } from './metadata.js';

const folder = basename(dirname(fileURLToPath(import.meta.url)));

/** Paths of the issues zod reports for `input` (empty when it parses). */
function issuePaths(schema: z.ZodType, input: unknown): PropertyKey[][] {
  const result = schema.safeParse(input);
  return result.success ? [] : result.error.issues.map((i) => i.path);
}
describe('wordpress metadata', () => {
  it('is the wordpress instance credential platform', () => {
    expect(wordpressMetadata.identifier).toBe(folder);
    expect(wordpressMetadata.authKind).toBe('credentials');
    expect(wordpressMetadata.instanceBased).toBe(true);
    expect(wordpressMetadata.editor).toBe('html');
    expect(wordpressMetadata.thread.supported).toBe(false);
    expect(wordpressMetadata.tools.map((t) => t.methodName)).toEqual(['postTypes', 'categoriesList', 'tagsList', 'categories', 'tags']);
  });

  it('accepts a realistic article', () => {
    const input = {
      __type: 'wordpress',
      title: 'Release notes 1.2',
      type: 'posts',
      main_image: { id: 'm_1', path: 'https://cdn.example.com/cover.png' },
      categories: [3, 7],
      tags: [12],
      status: 'draft',
    };
    const parsed = WordpressSettingsSchema.parse(input);
    expect(parsed).toMatchObject({ title: 'Release notes 1.2', type: 'posts', categories: [3, 7], status: 'draft' });
  });

  it('names the offending field', () => {
    expect(issuePaths(WordpressSettingsSchema, { title: 'T', type: 'posts' })).toEqual([['title']]);
    expect(issuePaths(WordpressSettingsSchema, { title: 'Title' })).toEqual([['type']]);
    expect(issuePaths(WordpressSettingsSchema, { title: 'Title', type: 'posts', categories: ['news'] })).toEqual([['categories', 0]]);
    expect(issuePaths(WordpressSettingsSchema, { title: 'Title', type: 'posts', status: 'scheduled' })).toEqual([['status']]);
    expect(issuePaths(WordpressSettingsSchema, { title: 'Title', type: 'posts', status: 'future' })).toEqual([['date']]);
    expect(issuePaths(WordpressSettingsSchema, { title: 'Title', type: 'posts', status: 'future', date: '2030-01-02T10:00:00Z' })).toEqual([]);
    expect(issuePaths(WordpressSettingsSchema, { title: 'Title', type: 'posts', categories: [1.5] })).toEqual([['categories', 0]]);
    expect(issuePaths(WordpressSettingsSchema, { title: 'Title', type: 'posts', main_image: { id: 'x' } })).toEqual([['main_image', 'path']]);
  });

  it('takes a site, a user name and an application password', () => {
    const body = { siteUrl: 'https://blog.example.com', username: 'editor', applicationPassword: 'abcd EFGH 1234 ijkl MNOP 5678' };
    expect(WordpressCredentialsSchema.parse(body)).toEqual(body);
    expect(issuePaths(WordpressCredentialsSchema, { ...body, siteUrl: 'ftp://blog.example.com' })).toEqual([['siteUrl']]);
    const missing = WordpressCredentialsSchema.safeParse({ siteUrl: body.siteUrl, username: 'editor' });
    expect(missing.error?.issues).toMatchObject([{ path: ['applicationPassword'], message: 'Required' }]);
  });
});

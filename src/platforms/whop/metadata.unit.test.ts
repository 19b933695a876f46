import { basename, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { WhopSettingsSchema, whopMetadata } from './metadata.js';

const folder = basename(dirname(fileURLToPath(import.meta.url)));

/** Paths of the issues zod reports for `input` (empty when it parses). */
function issuePaths(schema: z.ZodType, input: unknown): PropertyKey[][] {
  const result = schema.safeParse(input);
  return result.success ? [] : result.error.issues.map((i) => i.path);
}
describe('whop metadata', () => {
  it('is the whop OAuth platform with PKCE', () => {
    expect(whopMetadata.identifier).toBe(folder);
    expect(whopMetadata.oauth).toMatchObject({ authorizeUrl: 'https://api.whop.com/oauth/authorize', pkce: true, refresh: true });
    expect(whopMetadata.editor).toBe('markdown');
    expect(whopMetadata.text.maxLength).toBe(50_000);
    expect(whopMetadata.tools.map((t) => t.methodName)).toEqual(['companies', 'experiences']);
  });

  it('accepts company, experience and title', () => {
    const input = { __type: 'whop', company: 'biz_123', experience: 'exp_456', title: 'Launch day' };
    expect(WhopSettingsSchema.parse(input)).toEqual({ company: 'biz_123', experience: 'exp_456', title: 'Launch day' });
    expect(WhopSettingsSchema.safeParse({ company: 'biz_123', experience: 'exp_456' }).success).toBe(true);
  });

  it('names the offending field', () => {
    expect(issuePaths(WhopSettingsSchema, { company: 'biz_123' })).toEqual([['experience']]);
    expect(issuePaths(WhopSettingsSchema, { company: ' ', experience: 'exp_456' })).toEqual([['company']]);
    expect(issuePaths(WhopSettingsSchema, { company: 'c', experience: 'e', title: 5 })).toEqual([['title']]);
  });

  it('experiences takes a company id', () => {
    const experiences = whopMetadata.tools[1];
    expect(experiences?.dataSchema.safeParse({ id: 'biz_123' }).success).toBe(true);
    expect(issuePaths(experiences!.dataSchema, { id: '' })).toEqual([['id']]);
  });
});

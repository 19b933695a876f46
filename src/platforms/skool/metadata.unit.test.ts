import { basename, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { SkoolCredentialsSchema, SkoolSettingsSchema, skoolMetadata } from './metadata.js';

const folder = basename(dirname(fileURLToPath(import.meta.url)));

/** Paths of the issues zod reports for `input` (empty when it parses). */
function issuePaths(schema: z.ZodType, input: unknown): PropertyKey[][] {
  const result = schema.safeParse(input);
  return result.success ? [] : result.error.issues.map((i) => i.path);
}
describe('skool metadata', () => {
  it('is the skool credential platform', () => {
    expect(skoolMetadata.identifier).toBe(folder);
    expect(skoolMetadata.authKind).toBe('credentials');
    expect(skoolMetadata.text.maxLength).toBe(5000);
    expect(skoolMetadata.tools.map((t) => t.methodName)).toEqual(['groups', 'label']);
  });

  it('accepts group, label and title', () => {
    const input = { __type: 'skool', group: 'g-42', label: 'l-7', title: 'Weekly wins' };
    expect(SkoolSettingsSchema.parse(input)).toEqual({ group: 'g-42', label: 'l-7', title: 'Weekly wins' });
  });

  it('names each missing field', () => {
    expect(issuePaths(SkoolSettingsSchema, { group: 'g', title: 'T' })).toEqual([['label']]);
    expect(issuePaths(SkoolSettingsSchema, { group: '', label: 'l', title: 'T' })).toEqual([['group']]);
    expect(issuePaths(SkoolSettingsSchema, { group: 'g', label: 'l' })).toEqual([['title']]);
  });

  it('takes the session cookies as credentials', () => {
    expect(SkoolCredentialsSchema.parse({ authToken: 'eyJhbGciOi', clientId: 'c0ffee' })).toEqual({ authToken: 'eyJhbGciOi', clientId: 'c0ffee' });
    const result = SkoolCredentialsSchema.safeParse({ authToken: 'eyJhbGciOi' });
    expect(result.error?.issues).toMatchObject([{ path: ['clientId'], message: 'Required' }]);
  });

  it('label tool takes a group id', () => {
    const label = skoolMetadata.tools.find((t) => t.methodName === 'label');
    expect(label?.dataSchema.safeParse({ id: 'g-42' }).success).toBe(true);
    expect(issuePaths(label!.dataSchema, {})).toEqual([['id']]);
  });
});

describe('skool metadata: what is verified and what is assumed', () => {
  it('the rule sentence says there is no public API and names the assumptions', () => {
    expect(skoolMetadata.rules).toMatch(/no public API, so nothing here is verified against public documentation/);
    expect(skoolMetadata.rules).toMatch(/assumed: the 5,000-character limit/);
    expect(skoolMetadata.rules).toMatch(/must be admin or level/);
  });

  it('the credential fields say how to get the cookies and that the private web API is used', () => {
    const shape = SkoolCredentialsSchema.shape;
    expect(shape.authToken.description).toMatch(/auth_token.*cookie.*developer tools.*private web API/s);
    expect(shape.clientId.description).toMatch(/client_id.*cookie/);
  });
});

import { describe, expect, it } from 'vitest';
import { ListmonkCredentialsSchema, ListmonkSettingsSchema, listmonkMetadata } from './metadata.js';

const issues = (r: { error?: { issues: { path: PropertyKey[]; message: string }[] } }) =>
  r.error?.issues.map((i) => ({ path: i.path, message: i.message }));

describe('listmonk metadata', () => {
  it('is the listmonk platform: HTML email on an instance, list and templates tools', () => {
    expect(listmonkMetadata.identifier).toBe('listmonk');
    expect(listmonkMetadata.authKind).toBe('credentials');
    expect(listmonkMetadata.instanceBased).toBe(true);
    expect(listmonkMetadata.editor).toBe('html');
    expect(listmonkMetadata.text.maxLength).toBe(100_000_000);
    expect(listmonkMetadata.tools.map((t) => t.methodName)).toEqual(['list', 'templates']);
  });

  it('accepts a campaign, with an empty preview and no template', () => {
    expect(
      ListmonkSettingsSchema.safeParse({ __type: 'listmonk', subject: 'June news', preview: 'What we shipped', list: '3', template: '1' })
        .success,
    ).toBe(true);
    expect(ListmonkSettingsSchema.safeParse({ subject: 'June news', preview: '', list: '3' }).success).toBe(true);
  });

  it('rejects a missing subject, preview and list', () => {
    expect(issues(ListmonkSettingsSchema.safeParse({ __type: 'listmonk' }))).toEqual([
      { path: ['subject'], message: 'Required' },
      { path: ['preview'], message: 'Required' },
      { path: ['list'], message: 'Required' },
    ]);
    expect(issues(ListmonkSettingsSchema.safeParse({ subject: 'x', preview: '', list: 3 }))?.[0]?.path).toEqual(['list']);
  });

  it('takes several lists separated by commas; refuses a list or template that is not an id', () => {
    expect(ListmonkSettingsSchema.safeParse({ subject: 'x', preview: '', list: '3, 5' }).success).toBe(true);
    expect(issues(ListmonkSettingsSchema.safeParse({ subject: 'x', preview: '', list: 'news' }))).toEqual([
      { path: ['list'], message: 'Must be a list id from the `list` tool (several: comma-separated)' },
    ]);
    expect(issues(ListmonkSettingsSchema.safeParse({ subject: 'x', preview: '', list: '3', template: 'fancy' }))?.[0]?.path).toEqual(['template']);
  });

  it('credentials: instance URL, API user and token', () => {
    expect(
      ListmonkCredentialsSchema.safeParse({ instanceUrl: 'https://lists.example.com', username: 'tidings', token: 'tok_123' }).success,
    ).toBe(true);
    expect(issues(ListmonkCredentialsSchema.safeParse({ instanceUrl: 'lists.example.com', username: 'tidings', token: 't' }))).toEqual([
      { path: ['instanceUrl'], message: 'Must be an http(s) URL' },
    ]);
    expect(issues(ListmonkCredentialsSchema.safeParse({ instanceUrl: 'https://lists.example.com', username: 'tidings' }))).toEqual([
      { path: ['token'], message: 'Required' },
    ]);
  });
});

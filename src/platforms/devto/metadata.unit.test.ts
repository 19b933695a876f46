import { describe, expect, it } from 'vitest';
import { DevtoCredentialsSchema, DevtoSettingsSchema, devtoMetadata } from './metadata.js';

const issues = (r: { error?: { issues: { path: PropertyKey[]; message: string }[] } }) =>
  r.error?.issues.map((i) => ({ path: i.path, message: i.message }));

describe('devto metadata', () => {
  it('is the devto platform, a credentials platform writing Markdown', () => {
    expect(devtoMetadata.identifier).toBe('devto');
    expect(devtoMetadata.authKind).toBe('credentials');
    expect(devtoMetadata.editor).toBe('markdown');
    expect(devtoMetadata.text.maxLength).toBe(100_000);
    expect(devtoMetadata.thread.supported).toBe(false);
    expect(devtoMetadata.tools.map((t) => t.methodName)).toEqual(['tags', 'organizations']);
  });

  it('accepts a reference-shaped settings payload and defaults tags to []', () => {
    const r = DevtoSettingsSchema.safeParse({
      __type: 'devto',
      title: 'Scheduling posts with Node',
      main_image: { id: 'm1', path: 'https://cdn.example.com/cover.png' },
      canonical: 'https://blog.example.com/scheduling',
      organization: '1234',
      tags: [{ value: 8, label: 'node' }],
    });
    expect(r.success).toBe(true);
    expect(DevtoSettingsSchema.parse({ title: 'Hi there' }).tags).toEqual([]);
    // `series` (issue 17) is optional and may not be blank.
    expect(DevtoSettingsSchema.parse({ title: 'Hi there', series: 'Tidings' }).series).toBe('Tidings');
    expect(issues(DevtoSettingsSchema.safeParse({ title: 'Hi there', series: ' ' }))?.[0]?.path).toEqual(['series']);
    expect(devtoMetadata.analytics).toEqual({ channel: false, post: true });
  });

  it('rejects a short title, a bad canonical URL, string tag values and more than 4 tags', () => {
    expect(issues(DevtoSettingsSchema.safeParse({ title: 'A' }))).toEqual([
      { path: ['title'], message: 'Must be at least 2 characters' },
    ]);
    expect(issues(DevtoSettingsSchema.safeParse({}))).toEqual([{ path: ['title'], message: 'Required' }]);
    expect(issues(DevtoSettingsSchema.safeParse({ title: 'Ok', canonical: 'not a url' }))?.[0]?.path).toEqual(['canonical']);
    expect(issues(DevtoSettingsSchema.safeParse({ title: 'Ok', tags: [{ value: 'node', label: 'node' }] }))?.[0]?.path).toEqual([
      'tags',
      0,
      'value',
    ]);
    const five = Array.from({ length: 5 }, (_, i) => ({ value: i, label: `t${i}` }));
    expect(issues(DevtoSettingsSchema.safeParse({ title: 'Ok', tags: five }))?.[0]?.path).toEqual(['tags']);
  });

  it('credentials: takes an API key, refuses an empty one', () => {
    expect(DevtoCredentialsSchema.parse({ apiKey: 'abc123' })).toEqual({ apiKey: 'abc123' });
    expect(issues(DevtoCredentialsSchema.safeParse({ apiKey: '' }))).toEqual([{ path: ['apiKey'], message: 'Required' }]);
    expect(issues(DevtoCredentialsSchema.safeParse({}))).toEqual([{ path: ['apiKey'], message: 'Required' }]);
  });
});

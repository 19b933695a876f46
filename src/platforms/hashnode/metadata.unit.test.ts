import { describe, expect, it } from 'vitest';
import { HashnodeCredentialsSchema, HashnodeSettingsSchema, hashnodeMetadata } from './metadata.js';

const issues = (r: { error?: { issues: { path: PropertyKey[]; message: string }[] } }) =>
  r.error?.issues.map((i) => ({ path: i.path, message: i.message }));

const good = {
  __type: 'hashnode',
  title: 'Queues on PostgreSQL',
  subtitle: 'pg-boss in practice',
  main_image: { id: 'm1', path: 'https://cdn.example.com/cover.jpg', alt: 'cover' },
  canonical: 'https://blog.example.com/queues',
  publication: '64f0c0ffee',
  tags: [{ value: '56744721958ef13879b94cad', label: 'JavaScript' }],
};

describe('hashnode metadata', () => {
  it('is the hashnode platform with its two tools', () => {
    expect(hashnodeMetadata.identifier).toBe('hashnode');
    expect(hashnodeMetadata.authKind).toBe('credentials');
    expect(hashnodeMetadata.text.maxLength).toBe(10_000);
    expect(hashnodeMetadata.tools.map((t) => t.methodName)).toEqual(['tagsList', 'publications']);
    expect(hashnodeMetadata.analytics).toEqual({ channel: false, post: true });
  });

  it('accepts a reference-shaped payload', () => {
    expect(HashnodeSettingsSchema.safeParse(good).success).toBe(true);
  });

  it('rejects a title under 6 characters, a missing publication and an empty tag list', () => {
    expect(issues(HashnodeSettingsSchema.safeParse({ ...good, title: 'Short' }))).toEqual([
      { path: ['title'], message: 'Must be at least 6 characters' },
    ]);
    const { publication: _p, ...noPublication } = good;
    expect(issues(HashnodeSettingsSchema.safeParse(noPublication))).toEqual([{ path: ['publication'], message: 'Required' }]);
    expect(issues(HashnodeSettingsSchema.safeParse({ ...good, tags: [] }))).toEqual([{ path: ['tags'], message: 'At least one tag' }]);
    const six = Array.from({ length: 6 }, (_, i) => ({ value: `t${i}`, label: `T${i}` }));
    expect(issues(HashnodeSettingsSchema.safeParse({ ...good, tags: six }))).toEqual([{ path: ['tags'], message: 'At most 5 tags' }]);
    expect(issues(HashnodeSettingsSchema.safeParse({ ...good, subtitle: 'x' }))?.[0]?.path).toEqual(['subtitle']);
    expect(issues(HashnodeSettingsSchema.safeParse({ ...good, tags: [{ value: 'a' }] }))?.[0]?.path).toEqual(['tags', 0, 'label']);
  });

  it('credentials: takes a token, refuses a missing one', () => {
    expect(HashnodeCredentialsSchema.safeParse({ token: 'f3b1c2d4-aaaa' }).success).toBe(true);
    expect(issues(HashnodeCredentialsSchema.safeParse({ apiKey: 'x' }))).toEqual([{ path: ['token'], message: 'Required' }]);
  });
});

import { describe, expect, it } from 'vitest';
import { MediumCredentialsSchema, MediumSettingsSchema, mediumMetadata } from './metadata.js';

const issues = (r: { error?: { issues: { path: PropertyKey[]; message: string }[] } }) =>
  r.error?.issues.map((i) => ({ path: i.path, message: i.message }));

const good = {
  __type: 'medium',
  title: 'Why we self-host',
  subtitle: 'Owning the scheduler',
  canonical: 'https://blog.example.com/self-host',
  publication: 'b45573563f5a',
  tags: [
    { value: 'self-hosting', label: 'Self Hosting' },
    { value: 'open-source', label: 'Open Source' },
  ],
};

describe('medium metadata', () => {
  it('is the medium platform: token credentials, Markdown, publications tool', () => {
    expect(mediumMetadata.identifier).toBe('medium');
    expect(mediumMetadata.authKind).toBe('credentials');
    expect(mediumMetadata.editor).toBe('markdown');
    expect(mediumMetadata.thread.supported).toBe(false);
    expect(mediumMetadata.tools.map((t) => t.methodName)).toEqual(['publications']);
  });

  it('accepts a reference-shaped payload, and a (post:…) canonical placeholder', () => {
    expect(MediumSettingsSchema.safeParse(good).success).toBe(true);
    expect(MediumSettingsSchema.safeParse({ ...good, canonical: '(post:abc123)' }).success).toBe(true);
  });

  it('rejects a missing subtitle, a short title, a bad canonical and 5 tags', () => {
    const { subtitle: _s, ...noSubtitle } = good;
    expect(issues(MediumSettingsSchema.safeParse(noSubtitle))).toEqual([{ path: ['subtitle'], message: 'Required' }]);
    expect(issues(MediumSettingsSchema.safeParse({ ...good, title: 'W' }))).toEqual([
      { path: ['title'], message: 'Must be at least 2 characters' },
    ]);
    expect(issues(MediumSettingsSchema.safeParse({ ...good, canonical: 'blog' }))?.[0]?.path).toEqual(['canonical']);
    const five = Array.from({ length: 5 }, (_, i) => ({ value: `t${i}`, label: `T${i}` }));
    expect(issues(MediumSettingsSchema.safeParse({ ...good, tags: five }))).toEqual([{ path: ['tags'], message: 'At most 4 tags' }]);
  });

  it('credentials: takes a token, refuses an empty one', () => {
    expect(MediumCredentialsSchema.safeParse({ token: '2b5e7f0c9a' }).success).toBe(true);
    expect(issues(MediumCredentialsSchema.safeParse({ token: '' }))).toEqual([{ path: ['token'], message: 'Required' }]);
  });
});

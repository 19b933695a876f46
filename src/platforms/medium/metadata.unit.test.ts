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

  it('rejects a missing subtitle, a short or long title, a bad canonical, 4 tags and a tag over 25 characters', () => {
    const { subtitle: _s, ...noSubtitle } = good;
    expect(issues(MediumSettingsSchema.safeParse(noSubtitle))).toEqual([{ path: ['subtitle'], message: 'Required' }]);
    expect(issues(MediumSettingsSchema.safeParse({ ...good, title: 'W' }))).toEqual([
      { path: ['title'], message: 'Must be at least 2 characters' },
    ]);
    expect(issues(MediumSettingsSchema.safeParse({ ...good, canonical: 'blog' }))?.[0]?.path).toEqual(['canonical']);
    expect(issues(MediumSettingsSchema.safeParse({ ...good, title: 'x'.repeat(101) }))).toEqual([
      { path: ['title'], message: 'At most 100 characters (Medium ignores longer titles)' },
    ]);
    const four = Array.from({ length: 4 }, (_, i) => ({ value: `t${i}`, label: `T${i}` }));
    expect(issues(MediumSettingsSchema.safeParse({ ...good, tags: four }))).toEqual([{ path: ['tags'], message: 'At most 3 tags (Medium uses only the first 3)' }]);
    expect(issues(MediumSettingsSchema.safeParse({ ...good, tags: [{ value: 'a'.repeat(26), label: 'long' }] }))).toEqual([
      { path: ['tags', 0], message: 'A tag has at most 25 characters' },
    ]);
  });

  it('takes the format, publish status and notification switches, and refuses other values', () => {
    expect(MediumSettingsSchema.safeParse({ ...good, contentFormat: 'html', publishStatus: 'unlisted', notifyFollowers: true }).success).toBe(true);
    expect(issues(MediumSettingsSchema.safeParse({ ...good, contentFormat: 'rtf' }))?.[0]?.path).toEqual(['contentFormat']);
    expect(issues(MediumSettingsSchema.safeParse({ ...good, publishStatus: 'scheduled' }))?.[0]?.path).toEqual(['publishStatus']);
  });

  it('says in the connect form that Medium issues no new tokens', () => {
    expect(MediumCredentialsSchema.shape.token.description).toMatch(/stopped issuing new integration tokens/);
  });

  it('credentials: takes a token, refuses an empty one', () => {
    expect(MediumCredentialsSchema.safeParse({ token: '2b5e7f0c9a' }).success).toBe(true);
    expect(issues(MediumCredentialsSchema.safeParse({ token: '' }))).toEqual([{ path: ['token'], message: 'Required' }]);
  });
});

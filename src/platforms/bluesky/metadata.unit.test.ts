import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BlueskyCredentialsSchema, blueskyMetadata } from './metadata.js';

describe('bluesky metadata', () => {
  it('credentials: service defaults to bsky.social; missing fields are named', () => {
    expect(BlueskyCredentialsSchema.parse({ identifier: 'me.bsky.social', password: 'app-pass' }).service).toBe('https://bsky.social');
    const r = BlueskyCredentialsSchema.safeParse({ service: 'ftp://x', identifier: '' });
    expect(r.error?.issues.map((i) => i.path.join('.'))).toEqual(['identifier', 'password', 'service']);
  });

  it('the connect form asks for the handle first, the app password second, the optional service last', () => {
    const form = z.toJSONSchema(BlueskyCredentialsSchema, { io: 'input' }) as {
      properties: Record<string, { title?: string; examples?: unknown[]; default?: unknown }>;
      required?: string[];
    };
    expect(Object.keys(form.properties)).toEqual(['identifier', 'password', 'service']);
    expect(Object.values(form.properties).map((p) => p.title)).toEqual(['Handle', 'App password', 'Service (advanced)']);
    expect(form.properties.identifier!.examples).toEqual(['yourname.bsky.social']);
    expect(form.properties.service!.default).toBe('https://bsky.social');
    expect(form.required).toEqual(['identifier', 'password']);
  });

  it('counts graphemes, takes no settings, 4 images of ≤ 1 MB or 1 video', () => {
    expect(blueskyMetadata.text).toEqual({ maxLength: 300, counting: 'graphemes' });
    expect(blueskyMetadata.settings).toBeNull();
    expect(blueskyMetadata.media.image?.maxBytes).toBe(1_000_000);
    expect(blueskyMetadata.media.mixed).toBe(false);
  });
});

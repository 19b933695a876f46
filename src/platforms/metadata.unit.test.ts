import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { canServeAs } from '../core/media/renditions.js';
import { PLATFORM_METADATA } from './metadata.js';
import { PLATFORM_IDENTIFIERS } from './platform.js';

// VK takes optional settings of ours (the community to post as); the reference has none for it.
const NO_SETTINGS = ['bluesky', 'nostr', 'telegram', 'threads'];

describe('platform metadata registry', () => {
  it('has every identifier of API.md §9 under its own name', () => {
    expect(Object.keys(PLATFORM_METADATA).sort()).toEqual([...PLATFORM_IDENTIFIERS].sort());
    expect(PLATFORM_IDENTIFIERS).toHaveLength(34);
    for (const [id, m] of Object.entries(PLATFORM_METADATA)) expect(m.identifier).toBe(id);
  });

  it('the four platforms that need no settings take none; every other one has a schema', () => {
    for (const [id, m] of Object.entries(PLATFORM_METADATA)) {
      expect(m.settings === null, id).toBe(NO_SETTINGS.includes(id));
    }
  });

  it('every settings, credentials and tool schema renders as JSON Schema (for /integration-settings)', () => {
    for (const [id, m] of Object.entries(PLATFORM_METADATA)) {
      if (m.settings) expect(() => z.toJSONSchema(m.settings!, { io: 'input', unrepresentable: 'any' }), id).not.toThrow();
      if (m.credentials) expect(() => z.toJSONSchema(m.credentials!, { io: 'input' }), id).not.toThrow();
      for (const t of m.tools) expect(() => z.toJSONSchema(t.dataSchema, { io: 'input' }), `${id}.${t.methodName}`).not.toThrow();
    }
  });

  it('a platform that pulls pictures gets every type a post may attach, as stored or as a rendition', () => {
    for (const [id, m] of Object.entries(PLATFORM_METADATA)) {
      const rule = m.media.image;
      if (!rule?.pulled || !rule.platformTypes) continue;
      for (const t of rule.mimeTypes) expect(canServeAs(t, rule.platformTypes), `${id} ${t}`).toBe(true);
    }
  });

  it('is consistent: auth details match the auth kind, limits are sane, tools are unique', () => {
    for (const [id, m] of Object.entries(PLATFORM_METADATA)) {
      if (m.authKind === 'oauth2') expect(m.oauth, `${id} oauth`).toBeDefined();
      if (m.authKind === 'credentials') expect(m.credentials, `${id} credentials`).toBeDefined();
      expect(m.text.maxLength, id).toBeGreaterThan(0);
      expect(m.media.minItems, id).toBeLessThanOrEqual(m.media.maxItems);
      if (m.media.maxItems > 0) expect(m.media.image ?? m.media.video, `${id} media kinds`).toBeDefined();
      expect(new Set(m.tools.map((t) => t.methodName)).size, id).toBe(m.tools.length);
      expect(m.concurrency.perChannel, id).toBeGreaterThanOrEqual(1);
      if (m.thread.supported) expect(m.thread.kind, id).toBeDefined();
    }
  });

  it('every credentials form trims its secrets alike: surrounding spaces dropped, all-space refused', () => {
    // devto, hashnode, listmonk, lemmy and medium kept the spaces before one requiredSecret was shared
    const { devto, lemmy, wordpress } = PLATFORM_METADATA;
    expect(devto.credentials!.parse({ apiKey: ' abc123\n' })).toEqual({ apiKey: 'abc123' });
    expect(devto.credentials!.safeParse({ apiKey: '   ' }).error?.issues).toMatchObject([{ path: ['apiKey'], message: 'Required' }]);
    expect(lemmy.credentials!.parse({ instanceUrl: 'https://lemmy.example', username: 'me', password: ' pw ' })).toMatchObject({ password: 'pw' });
    expect(wordpress.credentials!.parse({ siteUrl: 'https://blog.example', username: ' admin ', applicationPassword: ' abcd efgh ' })).toMatchObject({ username: 'admin', applicationPassword: 'abcd efgh' });
  });
});

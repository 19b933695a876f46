import { basename, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { vkMetadata } from './metadata.js';

const folder = basename(dirname(fileURLToPath(import.meta.url)));

describe('vk metadata', () => {
  it('is the VK ID OAuth platform with PKCE', () => {
    expect(vkMetadata.identifier).toBe(folder);
    expect(vkMetadata.authKind).toBe('oauth2');
    expect(vkMetadata.oauth).toMatchObject({
      authorizeUrl: 'https://id.vk.com/authorize',
      tokenUrl: 'https://id.vk.com/oauth2/auth',
      pkce: true,
      refresh: true,
    });
    expect(vkMetadata.oauth?.scopes).toContain('wall');
  });

  it('takes no settings', () => {
    expect(vkMetadata.settings).toBeNull();
    expect(vkMetadata.credentials).toBeUndefined();
  });

  it('describes text, media and comments', () => {
    expect(vkMetadata.text).toEqual({ maxLength: 2048, counting: 'characters' });
    expect(vkMetadata.media.maxItems).toBe(10);
    expect(vkMetadata.thread).toEqual({ supported: true, kind: 'comment' });
  });
});

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

  it('takes the target community and from_group as settings (none are required: existing payloads validate)', () => {
    const settings = vkMetadata.settings!;
    expect(vkMetadata.credentials).toBeUndefined();
    expect(settings.safeParse({ __type: 'vk' }).success).toBe(true);
    expect(settings.safeParse({ __type: 'vk', community: '' }).success).toBe(true);
    expect(settings.safeParse({ __type: 'vk', community: '218000111', from_group: false }).success).toBe(true);
    const bad = settings.safeParse({ __type: 'vk', community: 'club218000111' });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues[0]!.path).toEqual(['community']);
    const noCommunity = settings.safeParse({ from_group: true });
    expect(noCommunity.error!.issues[0]!.path).toEqual(['from_group']);
  });

  it('has the communities tool and post analytics', () => {
    expect(vkMetadata.tools.map((t) => t.methodName)).toEqual(['communities']);
    expect(vkMetadata.analytics).toEqual({ channel: false, post: true });
    expect(vkMetadata.oauth?.scopes).toContain('groups');
  });

  it('describes text, media and comments', () => {
    expect(vkMetadata.text).toEqual({ maxLength: 2048, counting: 'characters' });
    expect(vkMetadata.media.maxItems).toBe(10);
    expect(vkMetadata.thread).toEqual({ supported: true, kind: 'comment' });
  });
});

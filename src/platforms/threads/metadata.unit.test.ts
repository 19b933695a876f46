import { basename, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { threadsMetadata } from './metadata.js';

const folder = basename(dirname(fileURLToPath(import.meta.url)));

describe('threads metadata', () => {
  it('is the threads OAuth platform', () => {
    expect(threadsMetadata.identifier).toBe(folder);
    expect(threadsMetadata.authKind).toBe('oauth2');
    expect(threadsMetadata.oauth).toMatchObject({ tokenUrl: 'https://graph.threads.net/oauth/access_token', refresh: true });
    expect(threadsMetadata.oauth?.scopes).toEqual(expect.arrayContaining(['threads_basic', 'threads_content_publish', 'threads_manage_replies', 'threads_read_replies', 'threads_manage_insights']));
    expect(threadsMetadata.oauth?.pkce).toBe(false);
    expect(threadsMetadata.credentials).toBeUndefined();
  });

  it('takes no settings', () => {
    expect(threadsMetadata.settings).toBeNull();
  });

  it('describes text, media and replies', () => {
    // Graphemes: the generic lower bound; Threads' own count (an emoji as its UTF-8 bytes) is the adapter's validate.
    expect(threadsMetadata.text).toEqual({ maxLength: 500, counting: 'graphemes' });
    expect(threadsMetadata.media).toMatchObject({ minItems: 0, maxItems: 20, mixed: true, onThreadItems: true });
    // Threads pulls pictures and takes JPEG and PNG: a WebP goes as its JPEG rendition.
    expect(threadsMetadata.media.image).toMatchObject({ mimeTypes: ['image/jpeg', 'image/png', 'image/webp'], platformTypes: ['image/jpeg', 'image/png'], maxBytes: 8 * 1024 * 1024, pulled: true });
    expect(threadsMetadata.thread).toEqual({ supported: true, kind: 'reply' });
    expect(threadsMetadata.asyncProcessing).toBe(true);
    expect(threadsMetadata.analytics).toEqual({ channel: true, post: true });
  });
});

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
    expect(threadsMetadata.oauth?.scopes).toContain('threads_content_publish');
    expect(threadsMetadata.credentials).toBeUndefined();
  });

  it('takes no settings', () => {
    expect(threadsMetadata.settings).toBeNull();
  });

  it('describes text, media and replies', () => {
    expect(threadsMetadata.text).toEqual({ maxLength: 500, counting: 'characters' });
    expect(threadsMetadata.media).toMatchObject({ minItems: 0, maxItems: 20, mixed: true });
    expect(threadsMetadata.thread).toEqual({ supported: true, kind: 'reply' });
    expect(threadsMetadata.asyncProcessing).toBe(true);
    expect(threadsMetadata.analytics).toEqual({ channel: true, post: true });
  });
});

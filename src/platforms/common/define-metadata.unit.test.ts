import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { accountTool, anyAttachments, defineMetadata, imagesOnly, mediaRules, noMedia, oauthAppVariables } from './define-metadata.js';
import { IMAGE_TYPES, MiB, NoToolDataSchema, VIDEO_TYPES } from './schemas.js';

const least = {
  identifier: 'telegram',
  displayName: 'Acme',
  authKind: 'credentials',
  text: { maxLength: 500, counting: 'characters' },
  media: noMedia,
  concurrency: { perPlatform: 3 },
} as const;

describe('defineMetadata', () => {
  it('fills in what the platform leaves out with the defaults', () => {
    const m = defineMetadata(least);
    expect(m).toStrictEqual({
      identifier: 'telegram',
      displayName: 'Acme',
      authKind: 'credentials',
      instanceBased: false,
      editor: 'normal',
      text: { maxLength: 500, counting: 'characters' },
      media: { minItems: 0, maxItems: 0, mixed: false, onThreadItems: false },
      thread: { supported: false },
      asyncProcessing: false,
      concurrency: { perPlatform: 3, perChannel: 1 },
      settings: null,
      tools: [],
      rules: '',
      analytics: { channel: false, post: false },
    });
    // The same key order for every platform, optional fields absent rather than undefined.
    expect(Object.keys(m)).toEqual(['identifier', 'displayName', 'authKind', 'instanceBased', 'editor', 'text', 'media', 'thread', 'asyncProcessing', 'concurrency', 'settings', 'tools', 'rules', 'analytics']);
  });

  it('keeps every fact the platform gives, the optional ones in their place', () => {
    const settings = z.object({ channel: z.string() });
    const credentials = z.object({ token: z.string() });
    const tools = [{ methodName: 'channels', description: 'List channels', dataSchema: z.object({}) }];
    const m = defineMetadata({
      ...least,
      appName: 'ACME',
      authKind: 'oauth2',
      oauth: { authorizeUrl: 'https://a.example/authorize', tokenUrl: 'https://a.example/token', scopes: ['write'], pkce: true, refresh: false },
      deploymentApp: { variables: ['ACME_CLIENT_ID'], consoleUrl: null, app: 'an app' },
      instanceBased: true,
      editor: 'html',
      thread: { supported: true, kind: 'reply' },
      asyncProcessing: true,
      concurrency: { perPlatform: 2, perChannel: 2 },
      settings,
      credentials,
      tools,
      rules: 'One post at a time.',
      analytics: { post: true },
    });
    expect(m).toMatchObject({ appName: 'ACME', instanceBased: true, editor: 'html', thread: { supported: true, kind: 'reply' }, asyncProcessing: true, rules: 'One post at a time.' });
    expect(m.settings).toBe(settings);
    expect(m.credentials).toBe(credentials);
    expect(m.tools).toBe(tools);
    expect(m.concurrency).toEqual({ perPlatform: 2, perChannel: 2 });
    expect(m.analytics).toEqual({ channel: false, post: true });
    expect(Object.keys(m).slice(0, 6)).toEqual(['identifier', 'displayName', 'appName', 'authKind', 'oauth', 'deploymentApp']);
    expect(Object.keys(m).slice(-5)).toEqual(['settings', 'credentials', 'tools', 'rules', 'analytics']);
  });

  it('names the deployment app’s variables as config.ts reads them, unless the platform lists its own', () => {
    expect(oauthAppVariables('linkedin-page')).toEqual(['LINKEDIN_PAGE_CLIENT_ID', 'LINKEDIN_PAGE_CLIENT_SECRET']);
    const app = { consoleUrl: 'https://console.example', app: 'an app' };
    expect(defineMetadata({ ...least, identifier: 'instagram-standalone', deploymentApp: app }).deploymentApp).toStrictEqual({
      variables: ['INSTAGRAM_STANDALONE_CLIENT_ID', 'INSTAGRAM_STANDALONE_CLIENT_SECRET'],
      ...app,
    });
    expect(defineMetadata({ ...least, deploymentApp: { ...app, variables: ['A', 'B', 'C'] } }).deploymentApp?.variables).toEqual(['A', 'B', 'C']);
  });

  it('gives each platform its own default objects', () => {
    const a = defineMetadata(least);
    const b = defineMetadata(least);
    expect(a.thread).not.toBe(b.thread);
    expect(a.tools).not.toBe(b.tools);
    expect(a.analytics).not.toBe(b.analytics);
  });
});

describe('media presets', () => {
  it('mediaRules: as many items as the largest kind allows, nothing mixed or on thread items unless said', () => {
    const image = { maxCount: 4, mimeTypes: IMAGE_TYPES, maxBytes: 5 * MiB };
    const video = { maxCount: 1, mimeTypes: VIDEO_TYPES };
    expect(mediaRules({ image, video, onThreadItems: true })).toStrictEqual({ minItems: 0, maxItems: 4, image, video, mixed: false, onThreadItems: true });
    expect(mediaRules({ video, minItems: 1 })).toStrictEqual({ minItems: 1, maxItems: 1, video, mixed: false, onThreadItems: false });
  });

  it('noMedia takes nothing', () => {
    expect(noMedia).toStrictEqual({ minItems: 0, maxItems: 0, mixed: false, onThreadItems: false });
  });

  it('imagesOnly: pictures on the first item only, of the common types unless given', () => {
    expect(imagesOnly(10)).toStrictEqual({ minItems: 0, maxItems: 10, image: { maxCount: 10, mimeTypes: IMAGE_TYPES }, mixed: false, onThreadItems: false });
    expect(imagesOnly(1, ['image/jpeg'], { maxBytes: MiB, pulled: true }).image).toStrictEqual({ maxCount: 1, mimeTypes: ['image/jpeg'], maxBytes: MiB, pulled: true });
  });

  it('anyAttachments: both kinds up to the same count, mixed, on thread items too, with the platform’s limits', () => {
    expect(anyAttachments(10)).toStrictEqual({
      minItems: 0,
      maxItems: 10,
      image: { maxCount: 10, mimeTypes: IMAGE_TYPES },
      video: { maxCount: 10, mimeTypes: VIDEO_TYPES },
      mixed: true,
      onThreadItems: true,
    });
    const m = anyAttachments(5, { image: { maxBytes: MiB }, video: { mimeTypes: ['video/mp4'] } });
    expect(m.image).toStrictEqual({ maxCount: 5, mimeTypes: IMAGE_TYPES, maxBytes: MiB });
    expect(m.video).toStrictEqual({ maxCount: 5, mimeTypes: ['video/mp4'] });
  });
});

describe('accountTool', () => {
  it('lists the accounts a grant reaches, takes no data and names them with its noun', () => {
    const tool = accountTool('blogs', 'blog', 'The blogs of the account');
    expect(tool).toStrictEqual({ methodName: 'blogs', description: 'The blogs of the account', dataSchema: NoToolDataSchema, account: { noun: 'blog' } });
    expect(tool.dataSchema.safeParse({}).success).toBe(true);
  });
});

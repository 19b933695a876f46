import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../../test/helpers.js';
import { picture, platformApi, sha } from '../../../test/platform-api-kit.js';
import type { WordpressSimulator } from './wordpress.simulator.js';
import { APP_PASSWORD, credentialsInput, NEWS, platformOriginsFor, RELEASES, SITE, TAG_RUST, wordpressSimulator } from './wordpress.testkit.js';

/**
 * WordPress end to end through the HTTP API of a real app with its worker: the credentials form
 * verified against the simulated site (a wrong application password or user answers 400 naming
 * the field and stores nothing), the categories/tags/post types tools, then a post with a featured
 * image and a picture in the text, published by the worker. The simulator's records are the
 * verdict: the post with its categories and tags, the media library holding the uploaded bytes.
 */

const api = platformApi('wordpress');
let sim: WordpressSimulator;
let channelId: string;

beforeAll(async () => {
  sim = await wordpressSimulator();
  await api.start({ env: { PLATFORM_ORIGINS: platformOriginsFor(sim) } });
});

afterAll(async () => {
  await api.close();
  await sim?.close();
});

describe('wordpress through the API', () => {
  it('a wrong application password or user answers 400 naming the field, and stores nothing', async () => {
    const wrong = await api.expectConnectRefused(credentialsInput({ applicationPassword: 'abcd EFGH 1234 ijkl MNOP 0000' }));
    expect(wrong).toEqual([{ path: 'applicationPassword', message: 'WordPress refused the application password: The provided password is an invalid application password.' }]);
    expect((await api.expectConnectRefused(credentialsInput({ username: 'nobody' })))[0]!.path).toBe('username');
    expect((await api.expectConnectRefused({ siteUrl: SITE, username: 'editor' }))[0]!.path).toBe('applicationPassword');
  });

  it('connects with the site address, the user and the application password', async () => {
    const res = await api.connectForm(credentialsInput());
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ identifier: 'wordpress', name: 'Eddie Editor', profile: 'editor' });
    channelId = res.json<{ id: string }>().id;
    const row = await api.channelRow(channelId);
    expect(row.internalId).toBe('blog.example.com#7');
    expect(row.credentials).not.toContain(APP_PASSWORD);
    expect(await api.openCredentials(channelId)).toMatchObject({ restRoot: `${SITE}/wp-json/`, username: 'editor', applicationPassword: APP_PASSWORD, userId: 7 });
  });

  it('the tools list the categories, tags and post types', async () => {
    const tool = (methodName: string) => api.toolOutput(channelId, methodName);
    expect(await tool('categoriesList')).toEqual([
      { id: NEWS, name: 'News & Events', parent: 0 },
      { id: RELEASES, name: 'Releases', parent: NEWS },
      { id: 1, name: 'Uncategorized', parent: 0 },
    ]);
    expect(await tool('categories')).toEqual(await tool('categoriesList'));
    expect(await tool('tagsList')).toEqual([{ id: TAG_RUST, name: 'rust' }]);
    expect(await tool('postTypes')).toEqual([{ id: 'posts', name: 'Posts' }, { id: 'pages', name: 'Pages' }]);
  });

  it('refuses a post without a title or type, naming the field, before anything is sent', async () => {
    const res = await api.createPost(channelId, { title: 'x' }, [{ content: 'hi' }]);
    const paths = [...new Set(expectError(res, 400, 'VALIDATION_FAILED').fields!.map((f) => f.path))].sort();
    expect(paths).toEqual(['posts.0.settings.title', 'posts.0.settings.type']);
    expect(sim.posts).toHaveLength(0);
  });

  it('publishes a post with a featured image, a picture, categories and tags, byte for byte', async () => {
    const coverBytes = await picture(1);
    const inlineBytes = await picture(2, { format: 'jpeg' });
    const cover = await api.upload(coverBytes, 'cover.png');
    const inline = await api.upload(inlineBytes, 'inline.jpg');
    const post = await api.publish(
      channelId,
      { title: 'Release 2.0', type: 'posts', status: 'publish', categories: [NEWS, RELEASES], tags: [TAG_RUST], main_image: { id: cover.id, path: cover.path } },
      [{ content: '<p>Version <strong>2.0</strong> is out</p>', image: [{ id: inline.id, path: inline.path }] }],
    );
    expect(sim.posts).toHaveLength(1);
    const wp = sim.posts[0]!;
    expect(post.releaseId).toBe(String(wp.id));
    expect(post.releaseURL).toBe(`${SITE}/release-2-0/`);
    expect(wp).toMatchObject({ title: 'Release 2.0', status: 'publish', categories: [NEWS, RELEASES], tags: [TAG_RUST], author: 7 });
    expect(wp.content).toContain('<p>Version <strong>2.0</strong> is out</p>');
    expect(sim.mediaOf(wp)).toEqual({ featured: sha(coverBytes), inContent: [sha(inlineBytes)] });
    expect(sim.media.map((m) => m.mimeType)).toEqual(['image/png', 'image/jpeg']);
  });
});

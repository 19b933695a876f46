import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../../test/helpers.js';
import { callbackUrl, platformApi, PUBLIC_URL, sha, type PostItemInput } from '../../../test/platform-api-kit.js';
import type { TumblrSimulator } from './tumblr.simulator.js';
import { MAIN_BLOG, OTHER_BLOG, platformOriginsFor, SIDE_BLOG, TUMBLR_APP, tumblrSimulator } from './tumblr.testkit.js';

/**
 * Tumblr end to end through the HTTP API of a real app with its worker: connecting through
 * `GET /social/tumblr` → the simulator's authorisation page → the callback (the primary blog),
 * the `blogs` tool and `PUT /integrations/{id}/account`, validation naming fields, a post with a
 * picture and a video uploaded through `POST /upload` and published by the worker as NPF in one
 * multipart request, its note count as post analytics, and a transparent token refresh. The
 * simulator's records are the verdict: the post's blocks and the uploaded bytes (sha256).
 */

const VIDEO_FIXTURE = join(import.meta.dirname, '../../../test/fixtures/media/h264-aac-faststart.mp4');
const PNG_FIXTURE = join(import.meta.dirname, '../../../test/fixtures/media/photo-48x64.png');

const api = platformApi('tumblr');
let sim: TumblrSimulator;
let channelId: string;

beforeAll(async () => {
  sim = await tumblrSimulator();
  sim.apps.get(TUMBLR_APP.clientId)!.redirectUris = [callbackUrl('tumblr')];
  await api.start({ env: { PUBLIC_URL, PLATFORM_ORIGINS: platformOriginsFor(sim), TUMBLR_CLIENT_ID: TUMBLR_APP.clientId, TUMBLR_CLIENT_SECRET: TUMBLR_APP.clientSecret } });
});

afterAll(async () => {
  await api.close();
  await sim?.close();
});

const createPost = (settings: Record<string, unknown>, content: string, image: PostItemInput['image'] = []) => api.createPost(channelId, settings, [{ content, image }]);

/** Publishes (PUBLISHED, no error) and finds the simulator's record of the post. */
async function publish(settings: Record<string, unknown>, content: string, image: PostItemInput['image'] = []) {
  const post = await api.publish(channelId, settings, [{ content, image }]);
  const record = sim.posts.find((p) => p.id === post.releaseId);
  expect(record, `post ${post.releaseId}`).toBeDefined();
  return { post, record: record! };
}

describe('tumblr through the API', () => {
  it('connects through the authorisation page and the callback, on the primary blog', async () => {
    const { url, channel } = await api.connectThroughOAuth();
    expect(url.origin).toBe(sim.origin);
    expect(url.pathname).toBe('/oauth2/authorize');
    expect(url.searchParams.get('redirect_uri')).toBe(callbackUrl('tumblr'));
    expect(url.searchParams.get('scope')).toBe('basic write offline_access');
    expect(channel).toMatchObject({ name: MAIN_BLOG.title, profile: MAIN_BLOG.name });
    channelId = channel.id;
    expect((await api.channelRow(channelId)).internalId).toBe(MAIN_BLOG.uuid);
  });

  it('the blogs tool lists the account’s blogs; the channel switches blog and back; a blog of someone else is refused', async () => {
    expect((await api.toolOutput<{ id: string; current: boolean }[]>(channelId, 'blogs')).map((b) => [b.id, b.current])).toEqual([
      [SIDE_BLOG.uuid, false],
      [MAIN_BLOG.uuid, true],
    ]);
    const switched = await api.call({ method: 'PUT', url: `/public/v1/integrations/${channelId}/account`, payload: { id: SIDE_BLOG.uuid } });
    expect(switched.statusCode, switched.body).toBe(200);
    expect(switched.json()).toMatchObject({ id: channelId, name: SIDE_BLOG.title, profile: SIDE_BLOG.name });
    const { record } = await publish({}, '<p>A quick <em>sketch</em></p>');
    expect(record.blogUuid).toBe(SIDE_BLOG.uuid);
    const refused = await api.call({ method: 'PUT', url: `/public/v1/integrations/${channelId}/account`, payload: { id: OTHER_BLOG.uuid } });
    expect(refused.statusCode).toBe(400);
    const back = await api.call({ method: 'PUT', url: `/public/v1/integrations/${channelId}/account`, payload: { id: MAIN_BLOG.uuid } });
    expect(back.json()).toMatchObject({ name: MAIN_BLOG.title });
  });

  it('refuses bad settings and an empty post, naming the field', async () => {
    const before = sim.posts.length;
    const paths = (res: Awaited<ReturnType<typeof createPost>>) => [...new Set(expectError(res, 400, 'VALIDATION_FAILED').fields!.map((f) => f.path))];
    expect(paths(await createPost({ state: 'publish' }, '<p>x</p>'))).toEqual(['posts.0.settings.state']);
    expect(paths(await createPost({ tags: Array.from({ length: 31 }, (_, i) => `t${i}`).join(',') }, '<p>x</p>'))).toEqual(['posts.0.settings.tags']);
    expect(paths(await createPost({ sourceUrl: 'not a url' }, '<p>x</p>'))).toEqual(['posts.0.settings.sourceUrl']);
    expect(sim.posts.length).toBe(before);
  });

  it('publishes text, a picture and a video as NPF in one multipart request, byte for byte, with the settings', async () => {
    const pngBytes = await readFile(PNG_FIXTURE);
    const videoBytes = await readFile(VIDEO_FIXTURE);
    const png = await api.upload(pngBytes, 'photo.png');
    const clip = await api.upload(videoBytes, 'clip.mp4');
    const { post, record } = await publish(
      { title: 'New work', tags: '#ink, paper', sourceUrl: 'https://acme.example/source', link: 'https://acme.example/shop' },
      '<p>Fresh from the <strong>studio</strong></p><blockquote><p>quoted</p></blockquote>',
      [{ id: png.id, path: png.path, alt: 'A sketch' }, { id: clip.id, path: clip.path }],
    );
    expect(post.releaseURL).toBe(`https://${MAIN_BLOG.name}.tumblr.com/post/${post.releaseId}`);
    expect(record).toMatchObject({ blogUuid: MAIN_BLOG.uuid, state: 'published', tags: ['ink', 'paper'], sourceUrl: 'https://acme.example/source' });
    expect(record.content).toEqual([
      { type: 'text', subtype: 'heading1', text: 'New work' },
      { type: 'text', text: 'Fresh from the studio', formatting: [{ start: 15, end: 21, type: 'bold' }] },
      { type: 'text', subtype: 'indented', text: 'quoted' },
      { type: 'link', url: 'https://acme.example/shop' },
      { type: 'image', media: [{ type: 'image/png', identifier: 'media-0', width: 48, height: 64 }], alt_text: 'A sketch' },
      { type: 'video', provider: 'tumblr', media: expect.objectContaining({ type: 'video/mp4', identifier: 'media-1' }) },
    ]);
    expect(record.files.map((f) => f.sha256)).toEqual([sha(pngBytes), sha(videoBytes)]);
  });

  it('a queued post goes to the blog’s queue', async () => {
    const { record } = await publish({ state: 'queue' }, '<p>Later</p>');
    expect(record.state).toBe('queue');
  });

  it('post analytics are the post’s note count', async () => {
    const { post } = await publish({}, '<p>counted</p>');
    sim.setNoteCount(post.releaseId!, 17);
    const series = await api.figures(`post/${post.id}`);
    expect(series.map((s) => s.label)).toEqual(['Notes']);
    expect(Number(series[0]!.data.at(-1)!.total)).toBe(17);
  });

  it('an expired access token is refreshed on the way, and the rotated refresh token is stored', async () => {
    const { before, after } = await api.refreshOnTheWay(channelId, sim, () => api.toolOutput(channelId, 'blogs'));
    expect(after.refreshToken).not.toBe(before.refreshToken);
  });
});

import { readFile } from 'node:fs/promises';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../../test/helpers.js';
import { connectThroughApi, createPost, picture, settle, sha, startMetaApiWorld, upload, VIDEO_FIXTURE, type Listed, type MetaApiWorld } from '../common/meta-api.testkit.js';
import { IG_BAKERY, IG_LABS } from './instagram.testkit.js';

/**
 * Instagram (Facebook Login) end to end through the HTTP API against the Meta simulator: connect,
 * the `accounts` tool and `PUT /integrations/{id}/account`, then a carousel (two pictures and a
 * video) whose containers Instagram PULLS from the app's own `/media/...` URLs, processed over
 * several checks, published once, with its first comment.
 */

let w: MetaApiWorld;
let channel: Listed;

beforeAll(async () => {
  w = await startMetaApiWorld({ videoPolls: 3 });
  channel = await connectThroughApi(w, 'instagram');
});

afterAll(async () => {
  await w?.close();
});

describe('instagram through the API', () => {
  it('connects the first linked account; the accounts tool lists both; the channel switches account', async () => {
    expect(channel).toMatchObject({ name: IG_BAKERY.name, profile: IG_BAKERY.username, refreshNeeded: false });
    const accounts = await call(w.t.app, w.org.apiKey, { method: 'POST', url: `/public/v1/integration-trigger/${channel.id}`, payload: { methodName: 'accounts' } });
    expect(accounts.json<{ output: { id: string; current: boolean }[] }>().output.map((a) => [a.id, a.current])).toEqual([
      [IG_BAKERY.id, true],
      [IG_LABS.id, false],
    ]);
    const switched = await call(w.t.app, w.org.apiKey, { method: 'PUT', url: `/public/v1/integrations/${channel.id}/account`, payload: { id: IG_LABS.id } });
    expect(switched.json()).toMatchObject({ profile: IG_LABS.username });
    const back = await call(w.t.app, w.org.apiKey, { method: 'PUT', url: `/public/v1/integrations/${channel.id}/account`, payload: { id: IG_BAKERY.id } });
    expect(back.json()).toMatchObject({ profile: IG_BAKERY.username });
  });

  it('publishes a carousel pulled from the public media URLs, over several checks, once, with its first comment', async () => {
    const [a, b, v] = [await picture('jpeg'), await picture('jpeg'), await readFile(VIDEO_FIXTURE)];
    const media = [await upload(w, a, 'a.jpg'), await upload(w, b, 'b.jpg'), await upload(w, v, 'c.mp4')];
    const id = await createPost(w, channel.id, [{ content: '<p>Three from the bakery</p>', media }, { content: '<p>Recipe in bio</p>' }], {
      __type: 'instagram',
      post_type: 'post',
      collaborators: [{ label: 'friend.bakery' }],
    });
    const { post } = await settle(w, id);
    expect([post.state, post.error, post.thread.map((i) => [i.state, i.error])]).toEqual(['PUBLISHED', null, [['PUBLISHED', null]]]);
    const m = w.sim.igMedia.find((x) => x.id === post.releaseId)!;
    expect(m).toMatchObject({ igUserId: IG_BAKERY.id, mediaType: 'CAROUSEL_ALBUM', caption: 'Three from the bakery', collaborators: ['friend.bakery'], mediaSha256: [sha(a), sha(b), sha(v)] });
    expect(post.releaseURL).toBe(`https://www.instagram.com/p/${m.shortcode}/`);
    // the items pulled from the app's own media URLs, each once
    expect([...w.sim.containers.values()].filter((c) => c.isCarouselItem).map((c) => c.url)).toEqual(media.map((x) => x.path));
    expect(w.sim.mediaPublishCalls).toEqual([m.containerId]);
    // the video item needed three status reads (three checks) before the carousel could be made
    const videoItem = [...w.sim.containers.values()].find((c) => c.url === media[2]!.path)!;
    expect(w.sim.log.filter((l) => l.method === 'GET' && l.path.startsWith(`/v23.0/${videoItem.id}?`)).length).toBeGreaterThanOrEqual(3);
    expect(w.sim.comments.find((c) => c.id === post.thread[0]!.releaseId)).toMatchObject({ parentId: post.releaseId, message: 'Recipe in bio' });
  });

  it('a PNG from the library reaches Instagram (JPEG only) as its JPEG rendition, same picture, same size', async () => {
    const png = await picture('png', 640, 480);
    const item = await upload(w, png, 'drawing.png');
    const id = await createPost(w, channel.id, [{ content: '<p>A drawing</p>', media: [item] }], { __type: 'instagram', post_type: 'post' });
    const { post } = await settle(w, id);
    expect([post.state, post.error]).toEqual(['PUBLISHED', null]);
    const m = w.sim.igMedia.find((x) => x.id === post.releaseId)!;
    const container = w.sim.containers.get(m.containerId)!;
    // Instagram pulled the rendition's URL, next to the stored PNG's, and got JPEG bytes
    expect(container.url).toBe(`${item.path}.jpg`);
    expect(container.mimeType).toBe('image/jpeg');
    const served = await w.t.app.inject({ method: 'GET', url: new URL(container.url!).pathname });
    expect([served.statusCode, served.headers['content-type']]).toEqual([200, 'image/jpeg']);
    const jpeg = served.rawPayload;
    expect([...jpeg.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
    expect(sha(jpeg)).toBe(container.sha256);
    expect(m.mediaSha256).toEqual([sha(jpeg)]);
    const meta = await sharp(jpeg).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 640, 480]);
    // the same pixels (within JPEG's loss)
    const [a, b] = await Promise.all([sharp(png).raw().toBuffer(), sharp(jpeg).raw().toBuffer()]);
    let diff = 0;
    for (let i = 0; i < a.length; i++) diff += Math.abs(a[i]! - b[i]!);
    expect(diff / a.length).toBeLessThan(8);
  });

  it('a container Instagram cannot process fails the post with Instagram’s reason', async () => {
    const clip = await upload(w, await readFile(VIDEO_FIXTURE), 'short.mp4');
    w.sim.failNextContainers('The video is too short: reels must be at least 3 seconds (2207026)');
    const id = await createPost(w, channel.id, [{ content: '<p>Too short</p>', media: [clip] }], { __type: 'instagram', post_type: 'post' });
    const { post } = await settle(w, id);
    expect(post.state).toBe('ERROR');
    expect(post.error).toBe('Instagram (Facebook Business) (Acme Bakery) refused the post: Instagram could not process the media: The video is too short: reels must be at least 3 seconds (2207026)');
  });
});

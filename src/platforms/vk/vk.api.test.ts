import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../../test/helpers.js';
import { callbackUrl, platformApi, PUBLIC_URL, type PostItemInput } from '../../../test/platform-api-kit.js';
import type { VkSimulator } from './vk.simulator.js';
import { BAKERY, NEWS, platformOriginsFor, VK_APP, VK_USER, vkSimulator } from './vk.testkit.js';

/**
 * VK end to end through the HTTP API of a real app with its worker: connecting through
 * `GET /social/vk` → the simulator's VK ID page → the callback, the communities tool, a post with
 * pictures and a video published by the worker through VK's upload servers, a community post with
 * its thread items as comments, post analytics, and a transparent refresh of the 1-hour token.
 * The simulator's records are the verdict: posts and comments with the uploaded bytes (sha256).
 */

const FIXTURES = join(import.meta.dirname, '../../../test/fixtures/media');

const api = platformApi('vk');
let sim: VkSimulator;
let channelId: string;

beforeAll(async () => {
  // VK ID refuses a token exchange without the device_id it put on the callback.
  sim = await vkSimulator({ requireDeviceId: true });
  sim.apps.get(VK_APP.clientId)!.redirectUris = [callbackUrl('vk')];
  await api.start({ orgName: 'Bakery', env: { PUBLIC_URL, PLATFORM_ORIGINS: platformOriginsFor(sim), VK_CLIENT_ID: VK_APP.clientId, VK_CLIENT_SECRET: VK_APP.clientSecret } });
});

afterAll(async () => {
  await api.close();
  await sim?.close();
});

const upload = async (file: string, name = file) => api.upload(await readFile(join(FIXTURES, file)), name);
const image = (...media: { id: string; path: string }[]) => media.map((m) => ({ id: m.id, path: m.path }));
const createPost = (settings: Record<string, unknown>, items: PostItemInput[]) => api.createPost(channelId, settings, items);

describe('vk through the API', () => {
  it('connects through the VK ID page and the callback', async () => {
    const { url, back, page, channel } = await api.connectThroughOAuth();
    expect(url.origin).toBe(sim.origin);
    expect(url.pathname).toBe('/authorize');
    expect(url.searchParams.get('redirect_uri')).toBe(callbackUrl('vk'));
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(back.searchParams.get('device_id')).toBe(sim.deviceIds.at(-1));
    expect(page.body).toContain('VK connected');
    expect(channel).toMatchObject({ name: 'Pavel Sokolov', profile: `id${VK_USER.id}` });
    channelId = channel.id;
    expect((await api.channelRow(channelId)).internalId).toBe(VK_USER.id);
    // The callback's device_id reaches the adapter (among the callback's parameters) and is kept for the refresh calls.
    expect((await api.openCredentials<{ deviceId: unknown }>(channelId)).deviceId).toBe(sim.deviceIds.at(-1));
  });

  it('the communities tool lists the communities the user can post to', async () => {
    expect((await api.toolOutput<{ id: string; name: string }[]>(channelId, 'communities')).map((g) => [g.id, g.name])).toEqual([
      [BAKERY.id, BAKERY.name],
      [NEWS.id, NEWS.name],
    ]);
  });

  it('refuses bad settings and an empty item, naming the field', async () => {
    const paths = (res: Awaited<ReturnType<typeof createPost>>) => [...new Set(expectError(res, 400, 'VALIDATION_FAILED').fields!.map((f) => f.path))];
    expect(paths(await createPost({ community: 'club1' }, [{ content: 'x' }]))).toEqual(['posts.0.settings.community']);
    expect(paths(await createPost({ from_group: true }, [{ content: 'x' }]))).toEqual(['posts.0.settings.from_group']);
    expect(paths(await createPost({}, [{ content: '<p></p>' }]))).toEqual(['posts.0.value.0.content']);
    expect(sim.posts).toHaveLength(0);
  });

  it('a post with two pictures and a video on the user’s wall, byte for byte', async () => {
    const png = await upload('photo-48x64.png');
    const jpg = await upload('photo-64x48.jpg');
    const clip = await upload('h264-aac-faststart.mp4', 'clip.mp4');
    const post = await api.publish(channelId, {}, [{ content: '<p>Morning <strong>bake</strong></p>', image: image(png, jpg, clip) }]);
    const record = sim.posts.find((p) => `${p.ownerId}_${p.id}` === post.releaseId)!;
    expect(record).toMatchObject({ ownerId: VK_USER.id, fromId: VK_USER.id, text: 'Morning bake' });
    expect(post.releaseURL).toBe(`https://vk.com/wall${post.releaseId}`);
    expect(sim.lookup(post.releaseId!)!.mediaSha256).toEqual([png.sha256, jpg.sha256, clip.sha256]);
  });

  it('a community post with thread items: published as the community, the items as comments on it', async () => {
    const png = await upload('photo-48x64.png', 'menu.png');
    const first = await api.publish(channelId, { community: BAKERY.id }, [{ content: '<p>Today’s menu</p>' }, { content: '<p>Soups</p>', image: image(png) }, { content: '<p>Borscht</p>' }]);
    const post = sim.posts.find((p) => `${p.ownerId}_${p.id}` === first.releaseId)!;
    expect(post).toMatchObject({ ownerId: `-${BAKERY.id}`, fromId: `-${BAKERY.id}`, text: 'Today’s menu' });
    const comments = await api.eventually(() => {
      const list = sim.comments.filter((c) => c.ownerId === post.ownerId && c.postId === post.id);
      return list.length === 2 ? list : undefined;
    }, 'both comments');
    expect(comments.map((c) => c.text)).toEqual(['Soups', 'Borscht']);
    expect(comments.map((c) => c.fromId)).toEqual([`-${BAKERY.id}`, `-${BAKERY.id}`]);
    expect(sim.lookup(`${post.ownerId}_${post.id}_${comments[0]!.id}`)!.mediaSha256).toEqual([png.sha256]);
  });

  it('post analytics: views, likes, reposts and comments', async () => {
    const post = await api.settle(api.postIdOf(await createPost({}, [{ content: 'counted' }])));
    sim.setPostStats(post.releaseId!, { views: 340, likes: 12, reposts: 3 });
    expect((await api.figures(`post/${post.id}`)).map((s) => [s.label, Number(s.data.at(-1)!.total)])).toEqual([
      ['Views', 340],
      ['Likes', 12],
      ['Reposts', 3],
      ['Comments', 0],
    ]);
  });

  it('an expired 1-hour token is refreshed on the way, and the rotated refresh token is stored', async () => {
    const { before, after } = await api.refreshOnTheWay(channelId, sim, () => api.toolOutput(channelId, 'communities'));
    expect(after.refreshToken).not.toBe(before.refreshToken);
  });
});

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../../test/helpers.js';
import { callbackUrl, picture, platformApi, PUBLIC_URL, sha, type PostItemInput } from '../../../test/platform-api-kit.js';
import type { PinterestSimulator } from './pinterest.simulator.js';
import { PINNER, PINTEREST_APP, pinterestSimulator, platformOriginsFor, RECIPES, TRAVEL } from './pinterest.testkit.js';

/**
 * Pinterest end to end through the HTTP API of a real app with its worker: connecting through
 * `GET /social/pinterest` → the simulator's authorisation page → the callback, the boards tool,
 * validation of pins (board, carousel size, video cover), media uploaded through `POST /upload`
 * and published by the worker — a PNG as base64, a GIF that the simulator pulls from the app's own
 * `/media/…` URL (the app listens on loopback, mapped from PUBLIC_URL), a carousel, and a video
 * whose processing takes several polls — then analytics and a transparent token refresh. The
 * simulator's records are the verdict: pins with the uploaded bytes (sha256), created once.
 */

const VIDEO_FIXTURE = join(import.meta.dirname, '../../../test/fixtures/media/h264-aac-faststart.mp4');
const GIF_FIXTURE = join(import.meta.dirname, '../../../test/fixtures/media/still-32x24.gif');

const api = platformApi('pinterest');
let sim: PinterestSimulator;
let channelId: string;
const mediaOrigins: Record<string, string> = {};

beforeAll(async () => {
  sim = await pinterestSimulator({ videoPollsUntilReady: 3, mediaOrigins });
  sim.apps.get(PINTEREST_APP.clientId)!.redirectUris = [callbackUrl('pinterest')];
  await api.start({ env: { PUBLIC_URL, PLATFORM_ORIGINS: platformOriginsFor(sim), PINTEREST_CLIENT_ID: PINTEREST_APP.clientId, PINTEREST_CLIENT_SECRET: PINTEREST_APP.clientSecret } });
  // Pinterest fetches GIFs from PUBLIC_URL: the app really listens, and the simulator maps PUBLIC_URL to it.
  mediaOrigins[PUBLIC_URL] = await api.listen();
});

afterAll(async () => {
  await api.close();
  await sim?.close();
});

type Image = NonNullable<PostItemInput['image']>;
const photo = (seed: number, format: 'png' | 'jpeg' = 'png') => picture(seed, { width: 64, height: 48, format });
const createPost = (settings: Record<string, unknown>, content: string, image: Image) => api.createPost(channelId, settings, [{ content, image }]);

/** Waits until the post is PUBLISHED or ERROR, bringing each next poll forward on the app's clock: the post and how many times. */
async function settle(id: string) {
  let polls = 0;
  const post = await api.settle(id, {
    advance: (p) => {
      if (api.toNextAttempt(p)) polls++;
    },
  });
  return { post, polls };
}

async function publish(settings: Record<string, unknown>, content: string, image: Image) {
  const { post, polls } = await settle(api.postIdOf(await createPost(settings, content, image)));
  expect({ state: post.state, error: post.error }).toEqual({ state: 'PUBLISHED', error: null });
  const pin = sim.pins.find((p) => p.id === post.releaseId);
  expect(pin, `pin ${post.releaseId}`).toBeDefined();
  expect(post.releaseURL).toBe(`https://www.pinterest.com/pin/${post.releaseId}/`);
  return { post, pin: pin!, polls };
}

describe('pinterest through the API', () => {
  it('connects through the authorisation page and the callback', async () => {
    const { url, page, channel } = await api.connectThroughOAuth();
    expect(url.origin).toBe(sim.origin);
    expect(url.pathname).toBe('/oauth/');
    expect(url.searchParams.get('redirect_uri')).toBe(callbackUrl('pinterest'));
    expect(url.searchParams.get('scope')).toBe('boards:read,boards:write,pins:read,pins:write,user_accounts:read');
    expect(page.body).toContain('Pinterest connected');
    expect(channel).toMatchObject({ name: 'Acme Kitchen', profile: 'acmekitchen', picture: PINNER.profile_image });
    channelId = channel.id;
    expect((await api.channelRow(channelId)).internalId).toBe(PINNER.id);
  });

  it('the boards tool lists the account’s boards', async () => {
    expect(await api.toolOutput(channelId, 'boards')).toEqual([{ id: TRAVEL, name: 'Travel' }, { id: RECIPES, name: 'Recipes' }]);
  });

  it('refuses a pin without a board, a video without a cover and a carousel of six, naming the field', async () => {
    const png = await api.upload(await photo(1), 'a.png');
    const video = await api.upload(await readFile(VIDEO_FIXTURE), 'clip.mp4');
    const paths = (res: Awaited<ReturnType<typeof createPost>>) => [...new Set(expectError(res, 400, 'VALIDATION_FAILED').fields!.map((f) => f.path))];
    expect(paths(await createPost({ title: 'x' }, 'no board', [png]))).toEqual(['posts.0.settings.board']);
    expect(paths(await createPost({ board: RECIPES }, 'no cover', [video]))).toEqual(['posts.0.value.0.image']);
    const six = await Promise.all([2, 3, 4, 5, 6, 7].map(async (n) => api.upload(await photo(n), `s${n}.png`)));
    expect(paths(await createPost({ board: RECIPES }, 'six', six))).toEqual(['posts.0.value.0.image']);
    expect(sim.pins).toHaveLength(0);
  });

  it('a PNG is published as a base64 pin with the settings, byte for byte', async () => {
    const png = await api.upload(await photo(10), 'soup.png');
    const { pin } = await publish({ board: RECIPES, title: 'Autumn soup', link: 'https://example.com/soup', dominant_color: '#aa5500' }, '<p>Pumpkin <strong>soup</strong></p>', [{ ...png, alt: 'A bowl of soup' }]);
    expect(pin).toMatchObject({ boardId: RECIPES, title: 'Autumn soup', description: 'Pumpkin soup', link: 'https://example.com/soup', dominantColor: '#aa5500', altText: 'A bowl of soup', sourceType: 'image_base64' });
    expect(pin.images.map((i) => i.sha256)).toEqual([png.sha256]);
  });

  it('a GIF is pulled by Pinterest from the app’s public media URL', async () => {
    const gifBytes = await readFile(GIF_FIXTURE);
    const gif = await api.upload(gifBytes, 'still.gif');
    expect(gif.path.startsWith(`${PUBLIC_URL}/media/`)).toBe(true);
    const { pin } = await publish({ board: TRAVEL }, 'A moving picture', [gif]);
    expect(pin.sourceType).toBe('image_url');
    expect(pin.images).toEqual([{ source: 'url', url: gif.path, sha256: gif.sha256, size: gifBytes.length, contentType: 'image/gif' }]);
  });

  it('three pictures of one size are published as a carousel, in order', async () => {
    const items = await Promise.all([21, 22, 23].map(async (n) => api.upload(await photo(n, n === 22 ? 'jpeg' : 'png'), `c${n}.${n === 22 ? 'jpg' : 'png'}`)));
    const { pin } = await publish({ board: RECIPES, title: 'Three steps' }, 'Step by step', items);
    expect(pin.sourceType).toBe('multiple_image_base64');
    expect(pin.images.map((i) => i.sha256)).toEqual(items.map((i) => i.sha256));
  });

  it('a video with its cover: uploaded, processed over several polls, published once', async () => {
    const videoBytes = await readFile(VIDEO_FIXTURE);
    const video = await api.upload(videoBytes, 'clip.mp4');
    const cover = await api.upload(await photo(30, 'jpeg'), 'cover.jpg');
    const pinsBefore = sim.pins.length;
    const { post, pin, polls } = await publish({ board: RECIPES, title: 'Soup in motion' }, 'Watch it simmer', [video, cover]);
    expect(polls).toBeGreaterThanOrEqual(3);
    expect(pin).toMatchObject({ sourceType: 'video_id', title: 'Soup in motion', description: 'Watch it simmer', videoSha256: sha(videoBytes) });
    expect(pin.cover).toMatchObject({ source: 'base64', sha256: cover.sha256, contentType: 'image/jpeg' });
    const m = sim.media.get(pin.mediaId!)!;
    expect({ status: m.status, uploads: m.uploads, size: m.size }).toEqual({ status: 'succeeded', uploads: 1, size: videoBytes.length });
    expect(sim.pins.length - pinsBefore).toBe(1);
    expect(sim.log.filter((l) => l.method === 'GET' && l.path === `/v5/media/${pin.mediaId}`).length).toBeGreaterThanOrEqual(4);
    expect(post.releaseId).toBe(pin.id);
  });

  it('analytics of the account and of a published pin', async () => {
    const today = new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000).toISOString().slice(0, 10);
    sim.setAccountAnalytics(PINNER.id, [{ date: today, metrics: { IMPRESSION: 321, SAVE: 4 } }]);
    const series = await api.figures(channelId);
    expect(series.map((s) => s.label)).toEqual(['Impressions', 'Engagements', 'Pin clicks', 'Outbound clicks', 'Saves']);
    expect(series[0]!.data).toHaveLength(7);
    expect(series[0]!.data.at(-1)).toEqual({ date: today, total: 321 });

    const { post } = await settle(api.postIdOf(await createPost({ board: RECIPES }, 'counted', [await api.upload(await photo(40), 'counted.png')])));
    sim.setPinAnalytics(post.releaseId!, [{ date: today, metrics: { IMPRESSION: 77, PIN_CLICK: 5 } }]);
    const ps = await api.figures(`post/${post.id}`);
    expect(ps.map((s) => s.label)).toEqual(['Impressions', 'Pin clicks', 'Outbound clicks', 'Saves']);
    expect(ps[0]!.data.at(-1)).toEqual({ date: today, total: 77 });
  });

  it('an expired access token is refreshed on the way, and the rotated refresh token is stored', async () => {
    const { before, after } = await api.refreshOnTheWay(channelId, sim, () => api.toolOutput(channelId, 'boards'));
    expect(after.refreshToken).not.toBe(before.refreshToken);
  });
});

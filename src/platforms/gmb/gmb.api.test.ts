import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../../test/helpers.js';
import { callbackUrl, picture, platformApi, PUBLIC_URL, sha, type Uploaded } from '../../../test/platform-api-kit.js';
import type { GmbSimulator } from './gmb.simulator.js';
import { BAKERY, CAFE, GMB_APP, gmbSimulator, GROUP, PERSONAL, platformOriginsEnv } from './gmb.testkit.js';

/**
 * Google Business Profile end to end through the HTTP API of a real app with its worker, against
 * the simulator: connect (`GET /social/gmb` → Google's consent → the callback), the locations
 * tool and the location switch (`PUT /integrations/{id}/account`), settings refused by field
 * before anything is sent, an EVENT with a photo uploaded through `POST /upload` that Google
 * fetches from the app's own public media URL (the app listens on loopback, mapped from
 * PUBLIC_URL) — verified in the simulator's records by sha256 — then the daily metrics.
 */

const api = platformApi('gmb');
let sim: GmbSimulator;
let channelId: string;
const mediaOrigins: Record<string, string> = {};

beforeAll(async () => {
  sim = await gmbSimulator({ mediaOrigins, reviewReads: 1 });
  sim.apps.get(GMB_APP.clientId)!.redirectUris = [callbackUrl('gmb')];
  await api.start({ env: { PUBLIC_URL, PLATFORM_ORIGINS: platformOriginsEnv(sim), GMB_CLIENT_ID: GMB_APP.clientId, GMB_CLIENT_SECRET: GMB_APP.clientSecret } });
  // Google fetches photos from PUBLIC_URL: the app really listens, and the simulator maps PUBLIC_URL to it.
  mediaOrigins[PUBLIC_URL] = await api.listen();
});

afterAll(async () => {
  await api.close();
  await sim?.close();
});

const createPost = (settings: Record<string, unknown>, content: string, image: Uploaded[] = []) => api.createPost(channelId, settings, [{ content, image: image.map((m) => ({ id: m.id, path: m.path })) }]);
const photo = (seed: number) => picture(seed, { width: 64, height: 48, format: 'jpeg' });

describe('gmb through the HTTP API', () => {
  it('connects through Google consent with offline access: the first location of the grant', async () => {
    const { url, channel } = await api.connectThroughOAuth();
    expect(url.origin).toBe(sim.origin);
    expect({ access: url.searchParams.get('access_type'), prompt: url.searchParams.get('prompt') }).toEqual({ access: 'offline', prompt: 'consent' });
    expect(channel.name).toBe(BAKERY.title);
    channelId = channel.id;
    expect((await api.channelRow(channelId)).internalId).toBe(`locations/${BAKERY.id}`);
    expect(await api.openCredentials(channelId)).toMatchObject({ accountName: PERSONAL, refreshToken: expect.stringMatching(/^1\/\/0/) });
  });

  it('lists the locations and switches the channel to another one (PUT /integrations/{id}/account)', async () => {
    expect((await api.toolOutput<{ id: string; current: boolean }[]>(channelId, 'locations')).map((l) => [l.id, l.current])).toEqual([
      [`locations/${BAKERY.id}`, true],
      [`locations/${CAFE.id}`, false],
    ]);
    const switched = await api.call({ method: 'PUT', url: `/public/v1/integrations/${channelId}/account`, payload: { id: `locations/${CAFE.id}` } });
    expect(switched.statusCode, switched.body).toBe(200);
    expect((await api.channelRow(channelId)).internalId).toBe(`locations/${CAFE.id}`);
    expect(await api.openCredentials(channelId)).toMatchObject({ accountName: GROUP, locationName: `locations/${CAFE.id}` });
  });

  it('refuses an offer without its title and dates, a button without a URL and two photos, naming the fields; nothing is sent', async () => {
    const paths = (res: Awaited<ReturnType<typeof createPost>>) => [...new Set(expectError(res, 400, 'VALIDATION_FAILED').fields!.map((f) => f.path))].sort();
    expect(paths(await createPost({ topicType: 'OFFER', offerCouponCode: 'X' }, 'Deal'))).toEqual(['posts.0.settings.eventEndDate', 'posts.0.settings.eventStartDate', 'posts.0.settings.eventTitle']);
    expect(paths(await createPost({ callToActionType: 'BOOK' }, 'Book now'))).toEqual(['posts.0.settings.callToActionUrl']);
    const a = await api.upload(await photo(1), 'a.jpg');
    const b = await api.upload(await photo(2), 'b.jpg');
    expect(paths(await createPost({}, 'Two', [a, b]))).toEqual(['posts.0.value.0.image']);
    expect(sim.posts).toHaveLength(0);
  });

  it('publishes an EVENT with a photo Google fetched from the app, reviewed then LIVE, byte for byte', async () => {
    const bytes = await photo(3);
    const media = await api.upload(bytes, 'fair.jpg');
    expect(media.path.startsWith(`${PUBLIC_URL}/media/`)).toBe(true);
    const settings = { topicType: 'EVENT', eventTitle: 'Harbour fair', eventStartDate: '2026-07-01', eventEndDate: '2026-07-02', eventStartTime: '10:00', eventEndTime: '17:00', callToActionType: 'LEARN_MORE', callToActionUrl: 'https://cafe.example/fair' };
    const post = await api.publish(channelId, settings, [{ content: '<p>Coffee &amp; <strong>cake</strong> by the water</p>', image: [{ id: media.id, path: media.path }] }]);
    expect(sim.posts).toHaveLength(1);
    const p = sim.posts[0]!;
    expect(post.releaseId).toBe(p.name);
    expect(post.releaseURL).toBe(p.searchUrl);
    expect(p).toMatchObject({
      locationId: CAFE.id,
      accountName: GROUP,
      state: 'LIVE',
      summary: 'Coffee & cake by the water',
      callToAction: { actionType: 'LEARN_MORE', url: 'https://cafe.example/fair' },
      event: { title: 'Harbour fair', schedule: { startDate: { year: 2026, month: 7, day: 1 }, startTime: { hours: 10, minutes: 0 } } },
    });
    expect(p.media.map((m) => [m.sourceUrl, m.sha256])).toEqual([[media.path, sha(bytes)]]);
  });

  it('an expired access token is refreshed on the way, keeping the refresh token', async () => {
    const { before, after } = await api.refreshOnTheWay(channelId, sim, () => api.toolOutput(channelId, 'locations'));
    expect(after.refreshToken).toBe(before.refreshToken);
  });

  it('daily metrics of the location', async () => {
    const today = new Date(Math.floor(api.clock.now() / 86_400_000) * 86_400_000).toISOString().slice(0, 10);
    sim.setDailyMetrics(CAFE.id, [{ date: today, metrics: { BUSINESS_IMPRESSIONS_MOBILE_SEARCH: 40, BUSINESS_IMPRESSIONS_MOBILE_MAPS: 2, WEBSITE_CLICKS: 3 } }]);
    const series = await api.figures(channelId);
    expect(series.map((s) => s.label)).toEqual(['Impressions', 'Website clicks', 'Calls', 'Direction requests', 'Conversations', 'Bookings']);
    expect(series[0]!.data).toHaveLength(7);
    expect(series[0]!.data.at(-1)).toEqual({ date: today, total: 42 });
    expect(series[1]!.data.at(-1)).toEqual({ date: today, total: 3 });
  });
});

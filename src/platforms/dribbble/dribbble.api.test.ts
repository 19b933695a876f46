import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../../test/helpers.js';
import { callbackUrl, picture, platformApi, PUBLIC_URL, sha, type Uploaded } from '../../../test/platform-api-kit.js';
import type { DribbbleSimulator } from './dribbble.simulator.js';
import { DRIBBBLE_APP, dribbbleSimulator, platformOriginsEnv, PLAYER, STUDIO } from './dribbble.testkit.js';

/**
 * Dribbble end to end through the HTTP API of a real app with its worker, against the simulator:
 * connect (`GET /social/dribbble` → Dribbble's authorisation page → the callback), the teams
 * tool, a picture of a size Dribbble refuses named on `value.0.image` before anything is sent,
 * then a 400×300 PNG uploaded through `POST /upload` and published by the worker as a team shot
 * with title and tags — verified in the simulator's records by sha256.
 */

const api = platformApi('dribbble');
let sim: DribbbleSimulator;
let channelId: string;

beforeAll(async () => {
  sim = await dribbbleSimulator();
  sim.apps.get(DRIBBBLE_APP.clientId)!.redirectUris = [callbackUrl('dribbble')];
  await api.start({ env: { PUBLIC_URL, PLATFORM_ORIGINS: platformOriginsEnv(sim), DRIBBBLE_CLIENT_ID: DRIBBBLE_APP.clientId, DRIBBBLE_CLIENT_SECRET: DRIBBBLE_APP.clientSecret } });
});

afterAll(async () => {
  await api.close();
  await sim?.close();
});

const createPost = (settings: Record<string, unknown>, content: string, image: Uploaded[]) => api.createPost(channelId, settings, [{ content, image: image.map((m) => ({ id: m.id, path: m.path })) }]);

describe('dribbble through the HTTP API', () => {
  it('connects through the authorisation page and the callback', async () => {
    const { url, channel } = await api.connectThroughOAuth();
    expect(url.origin).toBe(sim.origin);
    expect(url.pathname).toBe('/oauth/authorize');
    expect(url.searchParams.get('scope')).toBe('public upload');
    expect(channel).toMatchObject({ name: PLAYER.name, profile: PLAYER.login });
    channelId = channel.id;
    const row = await api.channelRow(channelId);
    expect(row.internalId).toBe(String(PLAYER.id));
    expect(row.tokenExpiresAt).toBeNull();
  });

  it('the teams tool lists the account’s teams', async () => {
    expect(await api.toolOutput(channelId, 'teams')).toEqual([{ id: String(STUDIO.id), name: STUDIO.name, url: `https://dribbble.com/${STUDIO.login}` }]);
  });

  it('refuses a picture Dribbble would not take and a shot without a title, naming the field; nothing is sent', async () => {
    const paths = (res: Awaited<ReturnType<typeof createPost>>) => [...new Set(expectError(res, 400, 'VALIDATION_FAILED').fields!.map((f) => f.path))];
    const wide = await api.upload(await picture(1, { width: 640, height: 480 }), 'wide.png');
    expect(paths(await createPost({ title: 'Wrong size' }, 'x', [wide]))).toEqual(['posts.0.value.0.image']);
    const good = await api.upload(await picture(2, { width: 400, height: 300 }), 'good.png');
    expect(paths(await createPost({}, 'x', [good]))).toEqual(['posts.0.settings.title']);
    expect(sim.shots).toHaveLength(0);
  });

  it('a draft with a picture of the wrong size: GET /posts/{id}/missing names value.0.image', async () => {
    const wide = await api.upload(await picture(4, { width: 800, height: 800 }), 'square.png');
    const res = await api.call({
      method: 'POST',
      url: '/public/v1/posts',
      payload: { type: 'draft', date: new Date(api.clock.now() + 86_400_000).toISOString(), shortLink: false, tags: [], posts: [{ integration: { id: channelId }, settings: { __type: 'dribbble', title: 'Square' }, value: [{ content: 'x', image: [{ id: wide.id, path: wide.path }] }] }] },
    });
    const missing = await api.call({ method: 'GET', url: `/public/v1/posts/${api.postIdOf(res)}/missing` });
    expect(missing.statusCode, missing.body).toBe(200);
    expect(missing.json()).toMatchObject({ ready: false, missing: [{ field: 'value.0.image', code: 'dimensions', message: expect.stringContaining('this picture is 800×800') }] });
  });

  it('publishes a 400×300 PNG as a team shot with title and tags, byte for byte', async () => {
    const bytes = await picture(3, { width: 400, height: 300 });
    const media = await api.upload(bytes, 'shot.png');
    const post = await api.publish(channelId, { title: 'Onboarding flow', team: `https://dribbble.com/${STUDIO.login}`, tags: ['ui', 'onboarding'] }, [
      { content: '<p>Three screens, <em>one</em> idea</p>', image: [{ id: media.id, path: media.path }] },
    ]);
    expect(sim.shots).toHaveLength(1);
    const shot = sim.shots[0]!;
    expect(post.releaseId).toBe(String(shot.id));
    expect(post.releaseURL).toBe(`https://dribbble.com/shots/${shot.id}`);
    expect(shot).toMatchObject({ title: 'Onboarding flow', description: 'Three screens, one idea', tags: ['ui', 'onboarding'], teamId: STUDIO.id });
    expect(shot.image).toMatchObject({ sha256: sha(bytes), width: 400, height: 300, contentType: 'image/png' });
  });
});

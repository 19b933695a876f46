import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../../test/helpers.js';
import { callbackUrl, picture, platformApi, PUBLIC_URL, sha, type Uploaded } from '../../../test/platform-api-kit.js';
import type { MeweSimulator, MeweSimulatorOptions } from './mewe.simulator.js';
import { ALICE, CLOSED, GARDEN, MEWE_APP, meweSimulator, platformOriginsFor } from './mewe.testkit.js';

/**
 * MeWe end to end through the HTTP API of a real app with its worker: `GET /social/mewe` → the
 * login page (the app id as client_id) → the callback with `loginRequestToken` (not `code`) → the
 * token exchange with the deployment's app id/key; a login not approved yet answers the callback
 * page with that reason and stores nothing. Then the groups tool, a group post with two photos and
 * a timeline post through `POST /posts`, MeWe's "Forbidden" kept in the post's error, and a revoked
 * token marking the channel for reconnection. The simulator's records are the verdict — but the
 * simulator encodes the reference's description of MeWe's undocumented developer API plus our
 * assumptions (see mewe.simulator.ts), not verified behaviour of MeWe.
 */

const api = platformApi('mewe');
let sim: MeweSimulator;
const simOpts: MeweSimulatorOptions = {};
let channelId: string;

beforeAll(async () => {
  sim = await meweSimulator(simOpts);
  await api.start({ env: { PUBLIC_URL, PLATFORM_ORIGINS: platformOriginsFor(sim), MEWE_CLIENT_ID: MEWE_APP.clientId, MEWE_CLIENT_SECRET: MEWE_APP.clientSecret } });
});

afterAll(async () => {
  await api.close();
  await sim?.close();
});

const createPost = (settings: Record<string, unknown>, content: string, image: Uploaded[] = []) => api.createPost(channelId, settings, [{ content, image: image.map((m) => ({ id: m.id, path: m.path })) }]);
const photo = (seed: number) => picture(seed, { width: 24, height: 16 });

/** Opens the login page the app hands out and follows MeWe's redirect back to the app's callback. */
async function login() {
  const url = await api.beginConnect();
  expect(url.origin).toBe(sim.origin);
  expect(url.pathname).toBe('/login');
  expect(url.searchParams.get('client_id')).toBe(MEWE_APP.clientId);
  expect(url.searchParams.get('redirect_uri')).toBe(callbackUrl('mewe'));
  const back = await api.authorise(url);
  expect(back.searchParams.get('loginRequestToken')).toMatch(/^[0-9a-f]{40}$/);
  expect(back.searchParams.has('code')).toBe(false);
  return api.callback(back);
}

describe('mewe through the API (simulated undocumented API: assumptions, not verified behaviour)', () => {
  it('a login the user has not approved yet answers the callback page with that reason and stores no channel', async () => {
    simOpts.holdApproval = true;
    const page = await login();
    simOpts.holdApproval = false;
    expect(page.statusCode).toBe(400);
    expect(page.body).toContain('has not been approved on MeWe yet');
    expect(await api.storedChannels()).toHaveLength(0);
  });

  it('connects through the login page and the callback with loginRequestToken', async () => {
    const page = await login();
    expect(page.statusCode, page.body).toBe(200);
    expect(page.body).toContain('MeWe connected');
    const channel = await api.connectedChannel();
    expect(channel).toMatchObject({ name: 'Alice Example', profile: ALICE.handle });
    channelId = channel.id;
    const row = await api.channelRow(channelId);
    expect(row.internalId).toBe(ALICE.userId);
    expect(row.tokenExpiresAt!.getTime()).toBeGreaterThan(Date.now() + 29 * 86_400_000);
    const exchange = sim.log.filter((l) => l.path.startsWith('/api/dev/token')).at(-1)!;
    expect(exchange.headers).toMatchObject({ 'x-app-id': MEWE_APP.clientId, 'x-api-key': MEWE_APP.clientSecret });

    const settings = await api.call({ method: 'GET', url: `/public/v1/integration-settings/${channelId}` });
    expect(settings.json<{ output: { rules: string } }>().output.rules).toMatch(/nothing here is verified against public documentation.*Assumed:/s);
  });

  it('the groups tool lists the account’s groups over every page', async () => {
    expect((await api.toolOutput<{ id: string }[]>(channelId, 'groups')).map((g) => g.id)).toEqual(ALICE.groups);
  });

  it('refuses a group post without a group, naming the field, before anything is sent', async () => {
    const res = await createPost({ postType: 'group' }, '<p>x</p>');
    expect(expectError(res, 400, 'VALIDATION_FAILED').fields!.map((f) => f.path)).toEqual(['posts.0.settings.group']);
    expect(sim.posts).toHaveLength(0);
  });

  it('publishes a group post with two photos (byte for byte), and a timeline post', async () => {
    const [a, b] = [await photo(1), await photo(2)];
    const ma = await api.upload(a, 'a.png');
    const mb = await api.upload(b, 'b.png');
    const post = await api.publish(channelId, { postType: 'group', group: GARDEN.groupId }, [{ content: '<p>Seed <em>swap</em> on Sunday</p>', image: [ma, mb].map((m) => ({ id: m.id, path: m.path })) }]);
    const made = sim.posts.find((p) => p.postItemId === post.releaseId)!;
    expect(made).toMatchObject({ groupId: GARDEN.groupId, text: 'Seed swap on Sunday', userId: ALICE.userId });
    expect(made.photos.map((p) => p.sha256)).toEqual([sha(a), sha(b)]);
    expect(post.releaseURL).toBe('https://mewe.com/group/g-garden');

    const tlPost = await api.settle(api.postIdOf(await createPost({ postType: 'timeline' }, '<p>Hello MeWe</p>')));
    expect(tlPost.state).toBe('PUBLISHED');
    expect(tlPost.releaseURL).toBe(`https://mewe.com/${ALICE.handle}/posts`);
    expect(sim.posts.find((p) => p.postItemId === tlPost.releaseId)).toMatchObject({ groupId: null, text: 'Hello MeWe' });
  });

  it('"Forbidden" (not a member of the group) fails the post with MeWe’s word', async () => {
    const before = sim.posts.length;
    const post = await api.settle(api.postIdOf(await createPost({ postType: 'group', group: CLOSED.groupId }, '<p>hi</p>')));
    expect(post.state).toBe('ERROR');
    expect(post.error).toMatch(/MeWe refused: Forbidden/);
    expect(sim.posts.length).toBe(before);
  });

  it('a revoked apiToken ("Unauthorized") fails the post and marks the channel for reconnection', async () => {
    sim.revoke(ALICE.userId);
    const post = await api.settle(api.postIdOf(await createPost({ postType: 'timeline' }, '<p>after revoke</p>')));
    expect(post.state).toBe('ERROR');
    expect(post.error).toMatch(/Unauthorized/);
    expect((await api.listChannels()).find((i) => i.id === channelId)!.refreshNeeded).toBe(true);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realtimeManualClock } from '../../../test/factories.js';
import { callbackUrl, picture, platformApi, PUBLIC_URL, sha } from '../../../test/platform-api-kit.js';
import type { WhopSimulator } from './whop.simulator.js';
import { ACME, LABS, platformOriginsFor, USER, WHOP_APP, whopSimulator } from './whop.testkit.js';

/**
 * Whop end to end through the HTTP API of a real app with its worker: `GET /social/whop` → the
 * simulator's authorisation page (PKCE, nonce) → the callback, the `companies` and `experiences`
 * tools, then a post with a picture and a thread item published by the worker into the chosen
 * experience — the picture created as a Whop file, PUT to the pre-signed storage address, polled
 * until ready (the publisher comes back for it), the item a comment by `parent_id` — and an expired
 * access token refreshed on the way. The simulator's records are the verdict (bytes by sha256).
 */

const NEWS = ACME.forums[0]!.experienceId;

const api = platformApi('whop');
let sim: WhopSimulator;
let channelId: string;

beforeAll(async () => {
  const clock = realtimeManualClock();
  sim = await whopSimulator({ processingPolls: 1, now: () => clock.now(), redirectUris: [callbackUrl('whop')] });
  await api.start({ clock, env: { PUBLIC_URL, PLATFORM_ORIGINS: platformOriginsFor(sim), WHOP_CLIENT_ID: WHOP_APP.clientId, WHOP_CLIENT_SECRET: WHOP_APP.clientSecret } });
});

afterAll(async () => {
  await api.close();
  await sim?.close();
});

describe('whop through the API', () => {
  it('connects through the authorisation page and the callback', async () => {
    const { url, channel } = await api.connectThroughOAuth();
    expect(url.origin).toBe(sim.origin);
    expect(url.pathname).toBe('/oauth/authorize');
    expect(url.searchParams.get('redirect_uri')).toBe(callbackUrl('whop'));
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(channel).toMatchObject({ name: USER.name, profile: USER.username });
    channelId = channel.id;
    expect((await api.channelRow(channelId)).internalId).toBe(USER.id);
  });

  it('the companies and experiences tools', async () => {
    expect(await api.toolOutput(channelId, 'companies')).toEqual([
      { id: ACME.id, name: ACME.title },
      { id: LABS.id, name: LABS.title },
    ]);
    expect(await api.toolOutput(channelId, 'experiences', { id: ACME.id })).toEqual(ACME.forums.map((f) => ({ id: f.experienceId, name: f.name })));
  });

  it('publishes a forum post with a picture (uploaded, polled until ready) and a comment, refreshing an expired token on the way', async () => {
    const bytes = await picture(3, { width: 32, height: 24 });
    const png = await api.upload(bytes, 'launch.png');
    sim.expireAccessTokens();
    const post = await api.publish(
      channelId,
      { company: ACME.id, experience: NEWS, title: 'Launch' },
      [{ content: '<p>We <strong>launched</strong></p>', image: [{ id: png.id, path: png.path }] }, { content: '<p>Questions welcome</p>' }],
      // The publisher's next look at the files (and the thread item) comes with the app's time.
      { until: () => sim.posts.length === 2, advance: () => api.clock.advance(2_000) },
    );
    const [root, comment] = sim.posts;
    expect(root).toMatchObject({ experienceId: NEWS, userId: USER.id, title: 'Launch', content: 'We **launched**', parentId: null, mediaSha256: [sha(bytes)] });
    expect(comment).toMatchObject({ experienceId: NEWS, parentId: root!.id, content: 'Questions welcome', mediaSha256: [] });
    expect(post.releaseId).toBe(root!.id);
    expect(post.releaseURL).toBe(`https://whop.com/experiences/${NEWS}/${root!.id}`);
    // The file was looked at until ready, and the token was refreshed once (JSON, with the rotating refresh token).
    expect(sim.log.filter((r) => r.method === 'GET' && r.path.startsWith('/api/v1/files/')).length).toBeGreaterThanOrEqual(2);
    expect(sim.log.filter((r) => r.path === '/oauth/token' && (r.body as { grant_type?: string }).grant_type === 'refresh_token')).toHaveLength(1);
  });
});

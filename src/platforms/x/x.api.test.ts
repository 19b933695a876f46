import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { picture, platformApi, PUBLIC_URL, sha } from '../../../test/platform-api-kit.js';
import type { XSimulator } from './x.simulator.js';
import { platformOriginsFor, USER, X_APP, xSimulator } from './x.testkit.js';

/**
 * X end to end through the HTTP API of a real app with its worker: connecting through
 * `GET /social/x` → the simulator's authorisation page → the callback, then posts made through
 * `POST /posts` that the worker publishes — a picture with its alt text and a reply under it, a
 * video X processes for a few polls before the post is made — a transparent token refresh on the
 * way, and a post X refuses (duplicate content) ending ERROR with X's own words. The simulator's
 * posts are the verdict: their text, reply, media bytes (sha256), made once.
 */

const VIDEO_FIXTURE = join(import.meta.dirname, '../../../test/fixtures/media/h264-aac-faststart.mp4');

const api = platformApi('x');
/** X's settings need who may reply. */
const EVERYONE = { who_can_reply_post: 'everyone' };
let sim: XSimulator;
let channelId: string;

beforeAll(async () => {
  sim = await xSimulator({ processingPolls: 2 });
  await api.start({ env: { PUBLIC_URL, PLATFORM_ORIGINS: platformOriginsFor(sim), X_CLIENT_ID: X_APP.clientId, X_CLIENT_SECRET: X_APP.clientSecret } });
});

afterAll(async () => {
  await api.close();
  await sim?.close();
});

describe('x through the API', () => {
  it('connects through the authorisation page and the callback, tokens stored sealed', async () => {
    const { url, channel } = await api.connectThroughOAuth();
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(channel).toMatchObject({ identifier: 'x', name: USER.name, profile: USER.username, refreshNeeded: false });
    channelId = channel.id;
    expect(await api.openCredentials(channelId)).toMatchObject({ userId: USER.id, username: USER.username, accessToken: expect.any(String), refreshToken: expect.any(String) });
  });

  it('publishes a picture with its alt text and a reply under it, byte for byte, with x.com URLs', async () => {
    const bytes = await picture(5);
    const up = await api.upload(bytes, 'chart.png');
    const before = sim.tweets.length;
    const post = await api.publish(channelId, EVERYONE, [{ content: '<p>Our <strong>numbers</strong></p>', image: [{ id: up.id, path: up.path, alt: 'A bar chart' }] }, { content: '<p>Details below</p>' }], {
      thread: true,
    });
    const [first, reply] = sim.tweets.slice(before);
    expect(first).toMatchObject({ id: post.releaseId, authorId: USER.id, text: 'Our numbers', mediaSha256: [sha(bytes)], altTexts: ['A bar chart'] });
    expect(post.releaseURL).toBe(`https://x.com/${USER.username}/status/${first!.id}`);
    expect(reply).toMatchObject({ text: 'Details below', replyTo: first!.id, mediaSha256: [] });
    expect(post.thread.map((i) => i.state)).toEqual(['PUBLISHED']);
  });

  it('a video X is still processing is posted once processing succeeds, once, after a transparent refresh', async () => {
    const bytes = await readFile(VIDEO_FIXTURE);
    const up = await api.upload(bytes, 'clip.mp4');
    const before = sim.tweets.length;
    const stored = await api.openCredentials<{ accessToken: string; refreshToken: string }>(channelId);
    const refreshes = () => sim.log.filter((r) => r.path === '/2/oauth2/token' && (r.body as { grant_type?: string }).grant_type === 'refresh_token').length;
    const refreshedBefore = refreshes();
    sim.expireAccessTokens();
    const post = await api.publish(channelId, EVERYONE, [{ content: '<p>Watch this</p>', image: [{ id: up.id, path: up.path }] }]);
    const made = sim.tweets.slice(before);
    expect(made).toHaveLength(1);
    expect(made[0]).toMatchObject({ id: post.releaseId, text: 'Watch this', mediaSha256: [sha(bytes)] });
    expect(refreshes()).toBe(refreshedBefore + 1);
    const after = await api.openCredentials<{ accessToken: string; refreshToken: string }>(channelId);
    // X rotates both tokens on a refresh.
    expect(after.accessToken).not.toBe(stored.accessToken);
    expect(after.refreshToken).not.toBe(stored.refreshToken);
  });

  it('a post X refuses ends ERROR with X’s words, and nothing more is posted', async () => {
    await api.publish(channelId, EVERYONE, [{ content: '<p>said once</p>' }]);
    const before = sim.tweets.length;
    const post = await api.settle(api.postIdOf(await api.createPost(channelId, EVERYONE, [{ content: '<p>said once</p>' }])));
    expect(post.state).toBe('ERROR');
    expect(post.error).toMatch(/duplicate content/);
    expect(sim.tweets.length).toBe(before);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../../test/helpers.js';
import { callbackUrl, platformApi, PUBLIC_URL, type PostItemInput } from '../../../test/platform-api-kit.js';
import type { KickSimulator } from './kick.simulator.js';
import { KICK_APP, kickSimulator, platformOriginsFor, STREAMER } from './kick.testkit.js';

/**
 * Kick end to end through the HTTP API of a real app with its worker: connecting through
 * `GET /social/kick` (PKCE) → the simulator's authorisation page → the callback, then a post of
 * two items published by the worker as a chat message and a reply to it, text too long or with
 * media refused when the post is made, and a transparent refresh of an expired token (the
 * rotated refresh token stored). The simulator's records are the verdict.
 */

const api = platformApi('kick');
let sim: KickSimulator;
let channelId: string;

beforeAll(async () => {
  sim = await kickSimulator();
  sim.apps.get(KICK_APP.clientId)!.redirectUris = [callbackUrl('kick')];
  await api.start({ env: { PUBLIC_URL, PLATFORM_ORIGINS: platformOriginsFor(sim), KICK_CLIENT_ID: KICK_APP.clientId, KICK_CLIENT_SECRET: KICK_APP.clientSecret } });
});

afterAll(async () => {
  await api.close();
  await sim?.close();
});

const createPost = (items: PostItemInput[]) => api.createPost(channelId, {}, items);

describe('kick through the API', () => {
  it('is connectable: GET /social/kick answers the authorisation URL with PKCE, and the callback stores the channel', async () => {
    const { url, channel } = await api.connectThroughOAuth();
    expect(url.origin).toBe(sim.origin);
    expect(url.pathname).toBe('/oauth/authorize');
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('redirect_uri')).toBe(callbackUrl('kick'));
    expect(channel).toMatchObject({ name: 'AcmeLive', profile: 'acmelive', picture: STREAMER.profile_picture });
    channelId = channel.id;
    expect((await api.channelRow(channelId)).internalId).toBe(String(STREAMER.user_id));
  });

  it('publishes a post and its thread item as a chat message and a reply to it', async () => {
    const post = await api.publish(channelId, {}, [{ content: '<p>We are <strong>live</strong>!</p>' }, { content: '<p>Come say hi</p>' }]);
    expect(post.releaseURL).toBe('https://kick.com/acmelive');
    const reply = await api.eventually(() => sim.messages.find((m) => m.replyTo === post.releaseId), 'the thread item to be sent');
    expect(sim.messages.map((m) => ({ id: m.id, content: m.content, replyTo: m.replyTo, broadcaster: m.broadcasterUserId }))).toEqual([
      { id: post.releaseId, content: 'We are live!', replyTo: null, broadcaster: STREAMER.user_id },
      { id: reply.id, content: 'Come say hi', replyTo: post.releaseId, broadcaster: STREAMER.user_id },
    ]);
  });

  it('refuses, when the post is made, text over 500 characters', async () => {
    const res = await createPost([{ content: 'a'.repeat(501) }]);
    expect(expectError(res, 400, 'VALIDATION_FAILED').fields!.map((f) => f.path)).toContain('posts.0.value.0.content');
  });

  it('an expired access token is refreshed on the way, and the rotated refresh token is stored', async () => {
    const sent = sim.messages.length;
    const { before, after } = await api.refreshOnTheWay(channelId, sim, () => api.publish(channelId, {}, [{ content: 'after expiry' }]));
    expect(sim.messages.slice(sent).map((m) => m.content)).toEqual(['after expiry']);
    expect(after.refreshToken).not.toBe(before.refreshToken);
  });
});

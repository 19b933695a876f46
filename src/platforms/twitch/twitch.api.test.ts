import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../../test/helpers.js';
import { callbackUrl, platformApi, PUBLIC_URL, type PostItemInput } from '../../../test/platform-api-kit.js';
import type { TwitchSimulator } from './twitch.simulator.js';
import { TWITCH_APP, twitchSimulator, platformOriginsFor, STREAMER } from './twitch.testkit.js';

/**
 * Twitch end to end through the HTTP API of a real app with its worker: connecting through
 * `GET /social/twitch` → the simulator's authorisation page → the callback, then a post of two
 * items published by the worker as a chat message and a reply to it, an announcement in its
 * colour (TwitchDto settings), text too long refused when the post is made, and a transparent
 * refresh of an expired token. The simulator's records are the verdict.
 */

const api = platformApi('twitch');
let sim: TwitchSimulator;
let channelId: string;

beforeAll(async () => {
  sim = await twitchSimulator();
  sim.apps.get(TWITCH_APP.clientId)!.redirectUris = [callbackUrl('twitch')];
  await api.start({ env: { PUBLIC_URL, PLATFORM_ORIGINS: platformOriginsFor(sim), TWITCH_CLIENT_ID: TWITCH_APP.clientId, TWITCH_CLIENT_SECRET: TWITCH_APP.clientSecret } });
});

afterAll(async () => {
  await api.close();
  await sim?.close();
});

const createPost = (items: PostItemInput[], settings: Record<string, unknown> = {}) => api.createPost(channelId, settings, items);

describe('twitch through the API', () => {
  it('is connectable: GET /social/twitch answers the authorisation URL, and the callback stores the channel', async () => {
    const { url, channel } = await api.connectThroughOAuth();
    expect(url.origin).toBe(sim.origin);
    expect(url.pathname).toBe('/oauth2/authorize');
    expect(url.searchParams.get('scope')).toBe('user:write:chat user:read:chat moderator:manage:announcements');
    expect(url.searchParams.get('redirect_uri')).toBe(callbackUrl('twitch'));
    expect(channel).toMatchObject({ name: 'AcmeLive', profile: 'acmelive', picture: STREAMER.profile_image_url });
    channelId = channel.id;
    expect((await api.channelRow(channelId)).internalId).toBe(STREAMER.id);
  });

  it('publishes a post and its thread item as a chat message and a reply to it', async () => {
    const post = await api.publish(channelId, {}, [{ content: '<p>We are <strong>live</strong>!</p>' }, { content: '<p>Come say hi</p>' }]);
    expect(post.releaseURL).toBe('https://twitch.tv/acmelive');
    const reply = await api.eventually(() => sim.messages.find((m) => m.replyTo === post.releaseId), 'the thread item to be sent');
    expect(sim.messages.map((m) => ({ id: m.id, text: m.text, replyTo: m.replyTo, broadcaster: m.broadcasterId, sender: m.senderId }))).toEqual([
      { id: post.releaseId, text: 'We are live!', replyTo: null, broadcaster: STREAMER.id, sender: STREAMER.id },
      { id: reply.id, text: 'Come say hi', replyTo: post.releaseId, broadcaster: STREAMER.id, sender: STREAMER.id },
    ]);
  });

  it('publishes an announcement in the colour of the settings', async () => {
    const post = await api.publish(channelId, { messageType: 'announcement', announcementColor: 'orange' }, [{ content: '<p>Giveaway at <strong>8 pm</strong></p>' }]);
    expect(post.releaseURL).toBe('https://twitch.tv/acmelive');
    expect(post.releaseId).toMatch(/^announcement-[0-9a-f]{32}$/);
    expect(sim.announcements).toMatchObject([{ text: 'Giveaway at 8 pm', color: 'orange', broadcasterId: STREAMER.id, moderatorId: STREAMER.id }]);
  });

  it('refuses an announcement colour Twitch does not have, naming the field', async () => {
    const res = await createPost([{ content: 'red?' }], { messageType: 'announcement', announcementColor: 'red' });
    expect(expectError(res, 400, 'VALIDATION_FAILED').fields!.map((f) => f.path)).toContain('posts.0.settings.announcementColor');
  });

  it('refuses, when the post is made, text over 500 characters', async () => {
    const res = await createPost([{ content: 'a'.repeat(501) }]);
    expect(expectError(res, 400, 'VALIDATION_FAILED').fields!.map((f) => f.path)).toContain('posts.0.value.0.content');
  });

  it('an expired access token is refreshed on the way, and the refresh token Twitch answers with is stored', async () => {
    const sent = sim.messages.length;
    const { before, after } = await api.refreshOnTheWay(channelId, sim, () => api.publish(channelId, {}, [{ content: 'after expiry' }]));
    expect(sim.messages.slice(sent).map((m) => m.text)).toEqual(['after expiry']);
    expect(after.refreshToken).not.toBe(before.refreshToken);
  });
});

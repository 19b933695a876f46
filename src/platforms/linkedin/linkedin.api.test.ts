import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callbackUrl, picture, platformApi, PUBLIC_URL, sha } from '../../../test/platform-api-kit.js';
import { linkedinCommentUrl, linkedinPostUrl } from './client.js';
import type { LinkedinSimulator } from './linkedin.simulator.js';
import { ADA, APP, linkedinAppEnv, linkedinSimulator } from './linkedin.testkit.js';

/**
 * LinkedIn (a member's profile) end to end through the HTTP API of a real app with its worker:
 * `GET /social/linkedin` → the simulator's authorisation page → the callback stores the member;
 * a post with a picture and a thread item published by the worker (the picture uploaded to
 * LinkedIn's upload URL byte for byte, the thread item a comment on the post); an exact
 * duplicate refused with LinkedIn's words; a revoked grant marking the channel for reconnection.
 * The simulator's records are the verdict.
 */

const api = platformApi('linkedin');
let sim: LinkedinSimulator;
let channelId: string;

beforeAll(async () => {
  sim = await linkedinSimulator();
  await api.start({ env: linkedinAppEnv(sim, 'LINKEDIN', PUBLIC_URL) });
});

afterAll(async () => {
  await api.close();
  await sim?.close();
});

const memberUrn = `urn:li:person:${ADA.sub}`;

describe('linkedin through the API', () => {
  it('connects: GET /social/linkedin → the authorisation page → the callback stores the member and a 60-day token', async () => {
    const { url, channel } = await api.connectThroughOAuth();
    expect(`${url.origin}${url.pathname}`).toBe(`${sim.origin}/oauth/v2/authorization`);
    expect(url.searchParams.get('client_id')).toBe(APP.clientId);
    expect(url.searchParams.get('redirect_uri')).toBe(callbackUrl('linkedin'));
    expect(url.searchParams.get('scope')).toBe('openid profile w_member_social');
    expect(channel).toMatchObject({ name: ADA.name, picture: ADA.picture, refreshNeeded: false });
    channelId = channel.id;
    const row = await api.channelRow(channelId);
    expect(row.internalId).toBe(ADA.sub);
    expect(row.tokenExpiresAt!.getTime()).toBeGreaterThan(Date.now() + 59 * 86_400_000);
    expect(await api.openCredentials(channelId)).toMatchObject({ memberUrn, authorUrn: memberUrn });
  });

  it('publishes a post with a picture (byte for byte) and its thread item as a comment', async () => {
    const png = await picture(7);
    const media = await api.upload(png, 'loom.png');
    const post = await api.publish(channelId, {}, [{ content: '<p>The engine weaves algebraic patterns</p>', image: [{ id: media.id, path: media.path }] }, { content: '<p>As the loom weaves flowers</p>' }], {
      thread: true,
    });
    const made = sim.posts.find((p) => p.urn === post.releaseId)!;
    expect(made).toMatchObject({ author: memberUrn, text: 'The engine weaves algebraic patterns', mediaSha256: [sha(png)], lifecycleState: 'PUBLISHED' });
    expect(post.releaseURL).toBe(linkedinPostUrl(made.urn));
    const [item] = post.thread;
    const comment = sim.comments.find((c) => c.urn === item!.releaseId)!;
    expect(comment).toMatchObject({ object: made.urn, actor: memberUrn, text: 'As the loom weaves flowers' });
    expect(item!.releaseURL).toBe(linkedinCommentUrl(made.urn, comment.urn));
  });

  it('an exact duplicate is refused: the post fails with LinkedIn’s words and nothing new is posted', async () => {
    const first = await api.publish(channelId, {}, [{ content: '<p>Same words twice</p>' }]);
    const before = sim.posts.length;
    const again = await api.settle(api.postIdOf(await api.createPost(channelId, {}, [{ content: '<p>Same words twice</p>' }])));
    expect(again.state).toBe('ERROR');
    expect(again.error).toContain(`Content is a duplicate of ${first.releaseId}`);
    expect(sim.posts.length).toBe(before);
  });

  it('a revoked grant fails the post and marks the channel for reconnection', async () => {
    sim.revokeAccessTokens();
    const post = await api.settle(api.postIdOf(await api.createPost(channelId, {}, [{ content: '<p>after revoke</p>' }])));
    expect(post.state).toBe('ERROR');
    expect(post.error).toMatch(/revoked/);
    expect((await api.listChannels()).find((i) => i.id === channelId)!.refreshNeeded).toBe(true);
  });
});

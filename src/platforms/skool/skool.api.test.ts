import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../../test/helpers.js';
import { picture, platformApi, sha, type PostItemInput } from '../../../test/platform-api-kit.js';
import type { SkoolSimulator } from './skool.simulator.js';
import { BUILDERS, HELP, MEMBER, platformOriginsFor, skoolSimulator, VIP, WINS } from './skool.testkit.js';

/**
 * Skool end to end through the HTTP API of a real app with its worker: the credentials form
 * (`POST /social/skool` with the session cookies, verified with `/self`; stale cookies are a 400
 * naming `authToken`, nothing stored), the groups and label tools, a post with two pictures and a
 * comment made through `POST /posts`, Skool's own refusal kept in the post's error, and an ended
 * session marking the channel for reconnection. The simulator's records are the verdict — but the
 * simulator encodes the reference's description of Skool's PRIVATE web API plus our assumptions
 * (see skool.simulator.ts), not verified behaviour of Skool.
 */

const api = platformApi('skool');
let sim: SkoolSimulator;
let channelId: string;

beforeAll(async () => {
  sim = await skoolSimulator();
  await api.start({ env: { PUBLIC_URL: 'https://tidings.example', PLATFORM_ORIGINS: platformOriginsFor(sim) } });
});

afterAll(async () => {
  await api.close();
  await sim?.close();
});

const createPost = (settings: Record<string, unknown>, items: PostItemInput[]) => api.createPost(channelId, settings, items);
const photo = (seed: number) => picture(seed, { width: 32, height: 24 });

describe('skool through the API (simulated private API: assumptions, not verified behaviour)', () => {
  it('stale session cookies answer 400 naming authToken and store no channel', async () => {
    expect((await api.expectConnectRefused({ authToken: 'logged-out-token', clientId: MEMBER.clientId })).map((f) => f.path)).toEqual(['authToken']);
  });

  it('the form describes how to get the cookies, and the settings rules say what is assumed', async () => {
    const form = await api.call({ method: 'GET', url: '/public/v1/social/skool' });
    expect(form.statusCode, form.body).toBe(200);
    expect(form.body).toMatch(/auth_token/);
    expect(form.body).toMatch(/private web API/);
  });

  it('connects with the session cookies, verified with /self, stored sealed', async () => {
    const res = await api.connectForm({ authToken: MEMBER.authToken, clientId: MEMBER.clientId });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ identifier: 'skool', name: 'Ada Lovelace', profile: MEMBER.name });
    expect(res.body).not.toContain(MEMBER.authToken);
    channelId = res.json<{ id: string }>().id;
    expect((await api.channelRow(channelId)).internalId).toBe(MEMBER.id);
    expect(await api.openCredentials(channelId)).toEqual({ authToken: MEMBER.authToken, clientId: MEMBER.clientId, userId: MEMBER.id });

    const settings = await api.call({ method: 'GET', url: `/public/v1/integration-settings/${channelId}` });
    expect(settings.statusCode, settings.body).toBe(200);
    expect(settings.json<{ output: { rules: string } }>().output.rules).toMatch(/nothing here is verified against public documentation.*assumed:/s);
  });

  it('the groups and label tools list the member’s groups and a group’s labels', async () => {
    expect((await api.toolOutput<{ id: string }[]>(channelId, 'groups')).map((g) => g.id)).toEqual([BUILDERS.id, VIP.id, expect.any(String)]);
    expect((await api.toolOutput<{ id: string; name: string }[]>(channelId, 'label', { id: BUILDERS.id })).slice(0, 2)).toEqual([
      { id: WINS.id, name: 'Wins' },
      { id: HELP.id, name: 'Help' },
    ]);
  });

  it('refuses a post without group, label and title, naming them, before anything is sent', async () => {
    const res = await createPost({}, [{ content: '<p>x</p>' }]);
    expect(expectError(res, 400, 'VALIDATION_FAILED').fields!.map((f) => f.path).sort()).toEqual(['posts.0.settings.group', 'posts.0.settings.label', 'posts.0.settings.title']);
    expect(sim.posts).toHaveLength(0);
  });

  it('publishes a post with two pictures (byte for byte) and a comment under it', async () => {
    const [a, b] = [await photo(1), await photo(2)];
    const ma = await api.upload(a, 'a.png');
    const mb = await api.upload(b, 'b.png');
    const post = await api.publish(channelId, { group: BUILDERS.id, label: WINS.id, title: 'Launch day' }, [
      { content: '<p>We <strong>launched</strong>!</p>', image: [ma, mb].map((m) => ({ id: m.id, path: m.path })) },
      { content: '<p>Details in the comments</p>' },
    ]);
    await api.eventually(() => sim.posts.length === 2, 'the comment');
    const [made, comment] = sim.posts;
    expect(post.releaseId).toBe(made!.id);
    expect(post.releaseURL).toBe('https://www.skool.com/builders-club/launch-day');
    expect(made).toMatchObject({ type: 'generic', groupId: BUILDERS.id, labels: WINS.id, title: 'Launch day', content: 'We launched!' });
    expect(made!.attachments.map((x) => x.sha256)).toEqual([sha(a), sha(b)]);
    expect(comment).toMatchObject({ type: 'comment', rootId: made!.id, parentId: made!.id, content: 'Details in the comments' });
  });

  it("Skool's refusal fails the post with Skool's words", async () => {
    const before = sim.posts.length;
    const post = await api.settle(api.postIdOf(await createPost({ group: VIP.id, label: 'none', title: 'Too early' }, [{ content: '<p>hi</p>' }])));
    expect(post.state).toBe('ERROR');
    expect(post.error).toMatch(/must be admin or level 3/);
    expect(sim.posts.length).toBe(before);
  });

  it('an ended session (logged out of Skool) fails the post and marks the channel for reconnection', async () => {
    sim.logout(MEMBER.id);
    const post = await api.settle(api.postIdOf(await createPost({ group: BUILDERS.id, label: HELP.id, title: 'After logout' }, [{ content: '<p>hi</p>' }])));
    expect(post.state).toBe('ERROR');
    expect(post.error).toMatch(/Skool ended the session/);
    expect((await api.listChannels()).find((i) => i.id === channelId)!.refreshNeeded).toBe(true);
  });
});

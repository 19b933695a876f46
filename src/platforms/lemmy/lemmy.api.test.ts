import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../../test/helpers.js';
import { picture, platformApi, sha, type PostItemInput } from '../../../test/platform-api-kit.js';
import type { LemmySimulator } from './lemmy.simulator.js';
import { ALICE, community, INSTANCE, lemmySimulator, OPENSOURCE, platformOriginsFor, SELFHOSTED } from './lemmy.testkit.js';

/**
 * Lemmy end to end through the HTTP API of a real app with its worker: the credentials form
 * verified against the simulated instance (a wrong password answers 400 naming `password`, an
 * address that is no Lemmy names `instanceUrl`, and nothing is stored), the community search
 * tool, validation of titles, then a post with a picture and two thread items published by the
 * worker into two communities — the picture uploaded to the instance's pict-rs, the items nested
 * as comments — post figures, and a session that ended being renewed on the way with the sealed
 * password. The simulator's records are the verdict.
 */

const NOT_LEMMY = 'https://not-lemmy.example';

const api = platformApi('lemmy');
let sim: LemmySimulator;
let notLemmy: Server;
let channelId: string;

beforeAll(async () => {
  sim = await lemmySimulator();
  notLemmy = createServer((_req, res) => res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Welcome to nginx</h1>'));
  await new Promise<void>((r) => notLemmy.listen(0, '127.0.0.1', r));
  const notLemmyOrigin = `http://127.0.0.1:${(notLemmy.address() as AddressInfo).port}`;
  await api.start({ env: { PLATFORM_ORIGINS: `${platformOriginsFor(sim)},${NOT_LEMMY}=${notLemmyOrigin}` } });
});

afterAll(async () => {
  await api.close();
  await sim?.close();
  await new Promise((r) => notLemmy?.close(r));
});

const connectInput = (extra: Record<string, unknown> = {}) => ({ instanceUrl: INSTANCE, username: ALICE.name, password: ALICE.password, ...extra });
const createPost = (settings: Record<string, unknown>, items: PostItemInput[]) => api.createPost(channelId, settings, items);

describe('lemmy through the API', () => {
  it('a wrong password names password, an address that is no Lemmy names instanceUrl; nothing is stored', async () => {
    expect(await api.expectConnectRefused(connectInput({ password: 'not it' }))).toEqual([{ path: 'password', message: 'Lemmy refused the login: wrong username or password' }]);
    const elsewhere = await api.expectConnectRefused(connectInput({ instanceUrl: NOT_LEMMY }));
    expect(elsewhere[0]!.path).toBe('instanceUrl');
    expect(elsewhere[0]!.message).toMatch(/does not answer like a Lemmy instance/);
    expect((await api.expectConnectRefused({ instanceUrl: INSTANCE, username: 'alice' }))[0]!.path).toBe('password');
  });

  it('connects with the instance, the username and the password', async () => {
    const res = await api.connectForm(connectInput());
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ identifier: 'lemmy', name: 'Alice Tidings', profile: 'alice@lemmy.example' });
    channelId = res.json<{ id: string }>().id;
    const row = await api.channelRow(channelId);
    expect(row.internalId).toBe(`${INSTANCE}/u/alice`);
    expect(row.credentials).not.toContain(ALICE.password);
    expect(await api.openCredentials(channelId)).toMatchObject({ instanceUrl: INSTANCE, username: 'alice', password: ALICE.password, personId: ALICE.id });
  });

  it('the subreddits tool searches the instance’s communities', async () => {
    expect(await api.toolOutput(channelId, 'subreddits', { word: 'self' })).toEqual([{ id: String(SELFHOSTED.id), name: 'selfhosted@lemmy.example', title: 'Self-hosted', subreddit: 'selfhosted', nsfw: false, subscribers: 5000 }]);
  });

  it('refuses titles Lemmy would refuse and a missing community, naming the field, before anything is sent', async () => {
    const paths = async (settings: Record<string, unknown>) => [...new Set(expectError(await createPost(settings, [{ content: 'hi' }]), 400, 'VALIDATION_FAILED').fields!.map((f) => f.path))];
    expect(await paths({ subreddit: [community(SELFHOSTED, 'x')] })).toEqual(['posts.0.settings.subreddit.0.value.title']);
    expect(await paths({ subreddit: [community(SELFHOSTED), community(OPENSOURCE, 'two\nlines')] })).toEqual(['posts.0.settings.subreddit.1.value.title']);
    expect(await paths({ subreddit: [] })).toEqual(['posts.0.settings.subreddit']);
    expect(sim.posts).toHaveLength(0);
  });

  it('publishes into two communities with a picture from pict-rs, thread items nested as comments', async () => {
    const bytes = await picture(1);
    const png = await api.upload(bytes, 'release.png');
    const post = await api.publish(channelId, { subreddit: [community(SELFHOSTED, 'Tidings 1.0 is out'), community(OPENSOURCE, 'Tidings 1.0, a scheduler', 'https://tidings.example/1.0')] }, [
      { content: '<p>Version <strong>1.0</strong> is out</p>', image: [{ id: png.id, path: png.path, alt: 'The release banner' }] },
      { content: '<p>What changed</p>' },
      { content: '<p>Everything</p>' },
    ]);
    const [a, b] = sim.posts;
    expect(post.releaseId).toBe(`${a!.id},${b!.id}`);
    expect(post.releaseURL).toBe(`${INSTANCE}/post/${a!.id}`);
    expect([...sim.images.values()].map((i) => i.sha256)).toEqual([sha(bytes)]);
    const pictureUrl = `${INSTANCE}/pictrs/image/${[...sim.images.keys()][0]!}`;
    expect(a).toMatchObject({ communityId: SELFHOSTED.id, name: 'Tidings 1.0 is out', url: pictureUrl, altText: 'The release banner', body: 'Version **1.0** is out', creatorId: ALICE.id });
    expect(b).toMatchObject({ communityId: OPENSOURCE.id, url: 'https://tidings.example/1.0', body: `![The release banner](${pictureUrl})\n\nVersion **1.0** is out` });
    expect(sim.imagesIn(a!.url)).toEqual([sha(bytes)]);
    expect(sim.imagesIn(b!.body)).toEqual([sha(bytes)]);

    const comments = await api.eventually(() => (sim.comments.length === 4 ? sim.comments : undefined), 'the four comments');
    const [c1, c2, c3, c4] = comments;
    expect(comments.map((c) => [c.postId, c.parentId, c.content])).toEqual([
      [a!.id, null, 'What changed'],
      [b!.id, null, 'What changed'],
      [a!.id, c1!.id, 'Everything'],
      [b!.id, c2!.id, 'Everything'],
    ]);
    expect([c3!.path, c4!.path]).toEqual([`0.${c1!.id}.${c3!.id}`, `0.${c2!.id}.${c4!.id}`]);
  });

  it('post figures: score and comments of the post, over its communities', async () => {
    const post = await api.settle(api.postIdOf(await createPost({ subreddit: [community(SELFHOSTED, 'Counted post')] }, [{ content: 'count me' }])));
    sim.setCounts(Number(post.releaseId), { score: 42, upvotes: 45, downvotes: 3, comments: 7 });
    expect((await api.figures(`post/${post.id}`)).map((s) => [s.label, Number(s.data.at(-1)!.total)])).toEqual([
      ['Score', 42],
      ['Upvotes', 45],
      ['Downvotes', 3],
      ['Comments', 7],
    ]);
  });

  it('a session that ended is renewed with the sealed password on the way, and the post goes out once', async () => {
    const open = () => api.openCredentials<{ jwt: string }>(channelId);
    const before = await open();
    const logins = sim.logins();
    const posts = sim.posts.length;
    sim.expireAccessTokens();
    await api.publish(channelId, { subreddit: [community(OPENSOURCE, 'After the logout')] }, [{ content: 'still here' }]);
    expect(sim.logins()).toBe(logins + 1);
    expect(sim.posts.length).toBe(posts + 1);
    expect(sim.posts.at(-1)).toMatchObject({ name: 'After the logout', body: 'still here' });
    expect((await open()).jwt).not.toBe(before.jwt);
  });
});

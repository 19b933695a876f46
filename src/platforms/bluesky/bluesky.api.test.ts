import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { picture, platformApi, sha } from '../../../test/platform-api-kit.js';
import { BSKY_ENTRYWAY, BSKY_PDS, type BlueskySimulator } from './bluesky.simulator.js';
import { ALICE, blueskySimulator, LOGIN, platformOriginsFor } from './bluesky.testkit.js';

/**
 * Bluesky end to end through the HTTP API of a real app with its worker: the app-password form
 * (`POST /social/bluesky`, a login on the simulated entryway: a wrong password is a 400 naming
 * `password`, nothing stored), then posts made through `POST /posts` that the worker publishes on
 * the account's PDS: a picture with its alt text and a reply threaded under it. The simulator's
 * records are the verdict; a record the PDS refuses ends the post ERROR with the PDS's message.
 */

const api = platformApi('bluesky');
let sim: BlueskySimulator;
let channelId: string;

beforeAll(async () => {
  sim = await blueskySimulator();
  await api.start({ env: { PLATFORM_ORIGINS: platformOriginsFor(sim) } });
});

afterAll(async () => {
  await api.close();
  await sim?.close();
});

describe('bluesky through the API', () => {
  it('a wrong app password answers 400 naming it; the right one connects the account, its session stored sealed', async () => {
    expect((await api.expectConnectRefused({ ...LOGIN, password: 'wrong-pass-word' })).map((f) => f.path)).toEqual(['password']);

    const res = await api.connectForm({ ...LOGIN, identifier: `@${ALICE.handle}` });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ identifier: 'bluesky', name: ALICE.displayName, profile: ALICE.handle });
    expect(res.body).not.toContain(ALICE.password);
    channelId = res.json<{ id: string }>().id;
    const row = await api.channelRow(channelId);
    expect(row.internalId).toBe(ALICE.did);
    expect(row.credentials).not.toContain(ALICE.password);
    expect(await api.openCredentials(channelId)).toMatchObject({ service: BSKY_ENTRYWAY, pds: BSKY_PDS, did: ALICE.did, handle: ALICE.handle, password: ALICE.password });
  });

  it('publishes a picture with its alt text and a reply under it, with bsky.app URLs; a record the PDS refuses ends ERROR with its message', async () => {
    const bytes = await picture(5);
    const photo = await api.upload(bytes, 'photo.png');
    const post = await api.publish(channelId, {}, [{ content: '<p>Launch day</p>', image: [{ id: photo.id, path: photo.path, alt: 'The rocket' }] }, { content: '<p>More below</p>' }], {
      thread: true,
    });
    const [first, reply] = sim.records;
    expect(first).toMatchObject({ uri: post.releaseId, did: ALICE.did, text: 'Launch day' });
    expect(first!.reply).toBeUndefined();
    expect(first!.media.map((m) => m.sha256)).toEqual([sha(bytes)]);
    expect(first!.embed).toMatchObject({ $type: 'app.bsky.embed.images', images: [{ alt: 'The rocket' }] });
    expect(post.releaseURL).toBe(`https://bsky.app/profile/${ALICE.handle}/post/${first!.rkey}`);
    expect(reply).toMatchObject({ text: 'More below', reply: { root: { uri: first!.uri, cid: first!.cid }, parent: { uri: first!.uri, cid: first!.cid } } });
    expect(post.thread.map((i) => [i.state, i.releaseId])).toEqual([['PUBLISHED', reply!.uri]]);

    sim.injectKind('rejected');
    const refused = await api.settle(api.postIdOf(await api.createPost(channelId, {}, [{ content: '<p>refused</p>' }])));
    expect({ state: refused.state, error: refused.error }).toEqual({ state: 'ERROR', error: expect.stringContaining('must not be longer than 300 graphemes') });
    expect(sim.records).toHaveLength(2);
  });
});

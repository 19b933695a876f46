import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../../test/helpers.js';
import { picture, platformApi, PUBLIC_URL, sha } from '../../../test/platform-api-kit.js';
import type { WrapcastSimulator } from './wrapcast.simulator.js';
import { ALICE, NEYNAR_APP, platformOriginsFor, wrapcastSimulator } from './wrapcast.testkit.js';

/**
 * Farcaster end to end through the HTTP API of a real app with its worker: Sign in with Neynar
 * through `GET /social/wrapcast` → the simulator's login page → the callback (which carries
 * `signer_uuid` and `fid` instead of a code), the channel search tool, a cast with two pictures
 * that the simulator fetches from the app's own public media URLs (byte for byte), in a channel,
 * with a reply, then the cast's reactions as post analytics.
 */

const api = platformApi('wrapcast');
let sim: WrapcastSimulator;
let channelId: string;
const mediaOrigins: Record<string, string> = {};

beforeAll(async () => {
  sim = await wrapcastSimulator({ mediaOrigins });
  await api.start({ env: { PUBLIC_URL, PLATFORM_ORIGINS: platformOriginsFor(sim), WRAPCAST_CLIENT_ID: NEYNAR_APP.clientId, WRAPCAST_CLIENT_SECRET: NEYNAR_APP.apiKey } });
  // Farcaster clients fetch embeds from PUBLIC_URL: the app really listens, and the simulator maps PUBLIC_URL to it.
  mediaOrigins[PUBLIC_URL] = await api.listen();
});

afterAll(async () => {
  await api.close();
  await sim?.close();
});

/** Begins at the API and approves at the simulator: where the browser is sent back to. */
async function signInWithNeynar(): Promise<URL> {
  const url = await api.beginConnect();
  expect(url.origin).toBe(sim.origin);
  expect(url.pathname).toBe('/login');
  expect(url.searchParams.get('client_id')).toBe(NEYNAR_APP.clientId);
  return api.authorise(url);
}

describe('wrapcast through the API', () => {
  it('a callback without signer_uuid is refused naming it, and one whose fid is not the signer’s stores nothing', async () => {
    const back = await signInWithNeynar();
    back.searchParams.delete('signer_uuid');
    const page = await api.callback(back);
    expect(page.statusCode).toBe(400);
    expect(page.body).toContain('signer_uuid: Required');

    const again = await signInWithNeynar();
    again.searchParams.set('fid', '999');
    const wrongFid = await api.callback(again);
    expect(wrongFid.statusCode).toBe(400);
    expect(wrongFid.body).toContain('belongs to Farcaster account 6131, not 999');
    expect(await api.listChannels()).toEqual([]);
  });

  it('connects through Sign in with Neynar and the callback', async () => {
    const back = await signInWithNeynar();
    expect(back.searchParams.get('fid')).toBe(String(ALICE.fid));
    const page = await api.callback(back);
    expect(page.statusCode, page.body).toBe(200);
    expect(page.body).toContain('Farcaster connected');

    const channel = await api.connectedChannel();
    expect(channel).toMatchObject({ name: ALICE.display_name, profile: ALICE.username });
    channelId = channel.id;
    expect((await api.channelRow(channelId)).internalId).toBe(String(ALICE.fid));
    expect(await api.openCredentials(channelId)).toMatchObject({ signerUuid: back.searchParams.get('signer_uuid'), fid: ALICE.fid });
  });

  it('the subreddits tool searches Farcaster channels', async () => {
    expect((await api.toolOutput<{ id: string }[]>(channelId, 'subreddits', { word: 'mem' })).map((c) => c.id)).toEqual(['memes']);
  });

  it('refuses two channels and a cast over 320 bytes when the post is made, naming the field', async () => {
    const paths = async (settings: Record<string, unknown>, content: string) => expectError(await api.createPost(channelId, settings, [{ content }]), 400, 'VALIDATION_FAILED').fields!.map((f) => f.path);
    expect(await paths({ subreddit: [{ value: { id: 'dev' } }, { value: { id: 'memes' } }] }, 'two channels')).toContain('posts.0.settings.subreddit');
    expect(await paths({}, 'é'.repeat(161))).toContain('posts.0.value.0.content');
    expect(sim.casts).toHaveLength(0);
  });

  it('publishes a cast with two pictures in a channel, and its reply, through POST /posts; then its reactions', async () => {
    const bytes = [await picture(1, { width: 32, height: 24 }), await picture(2, { width: 32, height: 24 })];
    const media = await Promise.all(bytes.map((b, i) => api.upload(b, `p${i}.png`)));
    expect(media[0]!.path.startsWith(`${PUBLIC_URL}/media/`)).toBe(true);
    const post = await api.publish(channelId, { subreddit: [{ value: { id: 'memes' } }] }, [
      { content: '<p>Two <strong>pictures</strong> ☕</p>', image: media.map((m) => ({ id: m.id, path: m.path })) },
      { content: '<p>and a reply</p>' },
    ]);
    const first = sim.cast(post.releaseId!)!;
    expect(first).toMatchObject({ fid: ALICE.fid, text: 'Two pictures ☕', channelId: 'memes', parentHash: null });
    expect(first.embeds.map((e) => e.sha256)).toEqual(bytes.map(sha));
    expect(first.embeds.map((e) => e.url)).toEqual(media.map((m) => m.path));
    expect(post.releaseURL).toBe(`https://farcaster.xyz/${ALICE.username}/${first.hash.slice(0, 10)}`);
    const reply = await api.eventually(() => sim.casts.find((c) => c.parentHash === first.hash), 'the reply');
    expect(reply).toMatchObject({ text: 'and a reply', channelId: null, embeds: [] });
    expect(sim.casts).toHaveLength(2);

    Object.assign(first, { likes: 12, recasts: 4 });
    expect((await api.figures(`post/${post.id}`)).map((s) => [s.label, Number(s.data[0]!.total)])).toEqual([
      ['Likes', 12],
      ['Recasts', 4],
      ['Replies', 1],
    ]);
  });
});

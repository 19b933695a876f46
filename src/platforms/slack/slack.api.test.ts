import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SLACK_APP } from '../../../test/oauth-apps.js';
import { picture, platformApi, PUBLIC_URL, sha } from '../../../test/platform-api-kit.js';
import type { SlackSimulator } from './slack.simulator.js';
import { GENERAL, platformOriginsFor, RANDOM, SECRET, slackSimulator, TEAM } from './slack.testkit.js';

/**
 * Slack end to end through the HTTP API of a real app with its worker: the app installed into a
 * workspace through `GET /social/slack` → the simulator's authorisation page → the callback, the
 * `channels` tool, then a post made through `POST /posts` into the channel of its settings — a
 * picture uploaded as a Slack file with its alt text, and a thread item the worker posts as a
 * reply in the first message's thread. The simulator's messages are the verdict; a message Slack
 * refuses (its errors come under HTTP 200) ends ERROR with Slack's code.
 */

const api = platformApi('slack');
let sim: SlackSimulator;
let channelId: string;

beforeAll(async () => {
  sim = await slackSimulator(SLACK_APP);
  await api.start({ env: { PUBLIC_URL, PLATFORM_ORIGINS: platformOriginsFor(sim), SLACK_CLIENT_ID: SLACK_APP.clientId, SLACK_CLIENT_SECRET: SLACK_APP.clientSecret } });
});

afterAll(async () => {
  await api.close();
  await sim?.close();
});

describe('slack through the API', () => {
  it('installs the app through the authorisation page and the callback: the workspace is the channel, its channels the tool’s answer', async () => {
    const { url, channel } = await api.connectThroughOAuth();
    expect(url.searchParams.get('scope')?.split(',')).toEqual(expect.arrayContaining(['chat:write', 'channels:read', 'files:write', 'team:read']));
    expect(channel).toMatchObject({ identifier: 'slack', name: 'Acme Corp', profile: 'acme', refreshNeeded: false });
    channelId = channel.id;
    expect((await api.channelRow(channelId)).internalId).toBe(TEAM);
    expect(await api.openCredentials(channelId)).toEqual({ accessToken: expect.stringMatching(/^xoxb-/), teamId: TEAM, teamDomain: 'acme', botUserId: 'U0BOT1' });
    expect(await api.toolOutput(channelId, 'channels')).toEqual([
      { id: GENERAL, name: 'general' },
      { id: RANDOM, name: 'random' },
      { id: SECRET, name: 'secret' },
    ]);
  });

  it('publishes a picture with its alt text in the chosen channel and the thread item as a reply in its thread; a refused message ends ERROR with Slack’s code', async () => {
    const bytes = await picture(9);
    const photo = await api.upload(bytes, 'launch.png');
    const post = await api.publish(channelId, { channel: RANDOM }, [{ content: '<p><strong>Launch</strong> day</p>', image: [{ id: photo.id, path: photo.path, alt: 'The rocket' }] }, { content: '<p>Details inside</p>' }], {
      thread: true,
    });
    const [first, reply] = sim.messages;
    expect(first).toMatchObject({ ts: post.releaseId, channel: RANDOM, text: '*Launch* day' });
    expect(first!.threadTs).toBeUndefined();
    expect(first!.files.map((f) => f.sha256)).toEqual([sha(bytes)]);
    expect(sim.log.find((r) => r.path === '/api/files.getUploadURLExternal')?.body).toMatchObject({ length: String(bytes.length), alt_txt: 'The rocket' });
    expect(post.releaseURL).toBe(`https://acme.slack.com/archives/${RANDOM}/p${first!.ts.replace('.', '')}`);
    expect(reply).toMatchObject({ channel: RANDOM, threadTs: first!.ts, text: 'Details inside', files: [] });
    expect(post.thread.map((i) => [i.state, i.releaseId])).toEqual([['PUBLISHED', reply!.ts]]);

    sim.injectKind('rejected');
    const refused = await api.settle(api.postIdOf(await api.createPost(channelId, { channel: RANDOM }, [{ content: '<p>refused</p>' }])));
    expect({ state: refused.state, error: refused.error }).toEqual({ state: 'ERROR', error: expect.stringContaining('is_archived') });
    expect(sim.messages).toHaveLength(2);
  });
});

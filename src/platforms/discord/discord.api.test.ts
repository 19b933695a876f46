import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callbackUrl, picture, platformApi, PUBLIC_URL, sha } from '../../../test/platform-api-kit.js';
import { DISCORD_BOT_PERMISSIONS } from './client.js';
import type { DiscordSimulator } from './discord.simulator.js';
import { APP, BOT_TOKEN, discordSimulator, GENERAL, GUILD, NEWS, LOCKED, platformOriginsFor } from './discord.testkit.js';

/**
 * Discord end to end through the HTTP API of a real app with its worker: the bot installed into a
 * server through `GET /social/discord` → the simulator's authorisation page → the callback, the
 * `channels` tool, then a post made through `POST /posts` into the channel of its settings, a
 * picture with its alt text and a thread item the worker posts in a thread started from the first
 * message. The simulator's messages are the verdict; a message Discord refuses ends ERROR with its words.
 */

const api = platformApi('discord');
let sim: DiscordSimulator;
let channelId: string;

beforeAll(async () => {
  sim = await discordSimulator();
  await api.start({
    env: { PUBLIC_URL, PLATFORM_ORIGINS: platformOriginsFor(sim), DISCORD_CLIENT_ID: APP.clientId, DISCORD_CLIENT_SECRET: APP.clientSecret, DISCORD_BOT_TOKEN: BOT_TOKEN },
  });
});

afterAll(async () => {
  await api.close();
  await sim?.close();
});

describe('discord through the API', () => {
  it('installs the bot through the authorisation page and the callback: the server is the channel, its text channels the tool’s answer', async () => {
    const { url, channel } = await api.connectThroughOAuth();
    expect(Object.fromEntries(url.searchParams)).toMatchObject({ client_id: APP.clientId, scope: 'bot identify guilds', permissions: DISCORD_BOT_PERMISSIONS, redirect_uri: callbackUrl('discord') });
    expect(channel).toMatchObject({ identifier: 'discord', name: 'Acme Guild', picture: `https://cdn.discordapp.com/icons/${GUILD}/a1b2c3d4.png`, refreshNeeded: false });
    channelId = channel.id;
    expect((await api.channelRow(channelId)).internalId).toBe(GUILD);
    expect(await api.openCredentials(channelId)).toEqual({ guildId: GUILD });
    expect(await api.toolOutput(channelId, 'channels')).toEqual([
      { id: NEWS, name: 'announcements' },
      { id: GENERAL, name: 'general' },
      { id: LOCKED, name: 'staff' },
    ]);
  });

  it('publishes a picture with its alt text in the chosen channel and the thread item in a thread under it; a refused message ends ERROR with Discord’s words', async () => {
    const bytes = await picture(7);
    const photo = await api.upload(bytes, 'launch.png');
    const post = await api.publish(channelId, { channel: NEWS }, [{ content: '<p><strong>Launch</strong> day</p>', image: [{ id: photo.id, path: photo.path, alt: 'The rocket' }] }, { content: '<p>Details inside</p>' }], {
      thread: true,
    });
    const [first, reply] = sim.messages;
    expect(first).toMatchObject({ id: post.releaseId, channelId: NEWS, guildId: GUILD, content: '**Launch** day' });
    expect(first!.attachments.map((a) => ({ sha256: a.sha256, description: a.description }))).toEqual([{ sha256: sha(bytes), description: 'The rocket' }]);
    expect(post.releaseURL).toBe(`https://discord.com/channels/${GUILD}/${NEWS}/${first!.id}`);
    expect(sim.channels.get(first!.id)).toMatchObject({ parentId: NEWS, name: 'Launch day', starterMessageId: first!.id });
    expect(reply).toMatchObject({ channelId: first!.id, replyTo: first!.id, content: 'Details inside' });
    expect(post.thread.map((i) => [i.state, i.releaseId])).toEqual([['PUBLISHED', reply!.id]]);

    sim.injectKind('rejected');
    const refused = await api.settle(api.postIdOf(await api.createPost(channelId, { channel: GENERAL }, [{ content: '<p>refused</p>' }])));
    expect({ state: refused.state, error: refused.error }).toEqual({ state: 'ERROR', error: 'Discord (Acme Guild) refused the post: Invalid Form Body (content: Must be 2000 or fewer in length.)' });
    expect(sim.messages).toHaveLength(2);
  });
});

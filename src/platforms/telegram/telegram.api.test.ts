import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { picture, platformApi, sha } from '../../../test/platform-api-kit.js';
import type { TelegramSimulator } from './telegram.simulator.js';
import { BOT, CHANNEL, platformOriginsFor, telegramSimulator, TOKEN } from './telegram.testkit.js';

/**
 * Telegram end to end through the HTTP API of a real app with its worker: the credentials form
 * (`POST /social/telegram`, checked against the simulated Bot API: a token it does not know is a
 * 400 naming `botToken`, a chat where the bot is no administrator one naming `chatId`, nothing
 * stored), then posts made through `POST /posts` that the worker publishes: text, a photo with its
 * caption and a thread reply. The simulator's messages are the verdict; a post Telegram refuses
 * ends ERROR with Telegram's own description, and a bot kicked from the channel marks it for
 * reconnection.
 */

const api = platformApi('telegram');
let sim: TelegramSimulator;
let channelId: string;

beforeAll(async () => {
  sim = await telegramSimulator();
  await api.start({ env: { PLATFORM_ORIGINS: platformOriginsFor(sim) } });
});

afterAll(async () => {
  await api.close();
  await sim?.close();
});

describe('telegram through the API', () => {
  it('a token Telegram does not know, or a chat where the bot is no administrator, answers 400 naming the field and stores no channel', async () => {
    expect((await api.expectConnectRefused({ botToken: '999:AAbbCCddEEffGGhhIIjjKKllMMnnOOppQQ', chatId: '@acmenews' })).map((f) => f.path)).toEqual(['botToken']);
    const notAdmin = await api.expectConnectRefused({ botToken: TOKEN, chatId: '-1009999' });
    expect(notAdmin.map((f) => f.path)).toEqual(['chatId']);
    expect(notAdmin[0]!.message).toMatch(new RegExp(`@${BOT.username} must be an administrator`));
  });

  it('connects the bot to the channel by its @username, stored sealed under the chat’s id', async () => {
    const res = await api.connectForm({ botToken: TOKEN, chatId: '@acmenews' });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ identifier: 'telegram', name: CHANNEL.title, profile: CHANNEL.username });
    expect(res.body).not.toContain(TOKEN);
    channelId = res.json<{ id: string }>().id;
    const row = await api.channelRow(channelId);
    expect(row.internalId).toBe(String(CHANNEL.id));
    expect(row.credentials).not.toContain(TOKEN);
    expect(await api.openCredentials(channelId)).toEqual({ botToken: TOKEN, chatId: String(CHANNEL.id), username: CHANNEL.username });
  });

  it('publishes a photo with its caption (byte for byte) and a text reply under it, with t.me URLs', async () => {
    const bytes = await picture(3);
    const photo = await api.upload(bytes, 'photo.png');
    const before = sim.messages.length;
    const post = await api.publish(channelId, {}, [{ content: '<p><strong>Launch</strong> day</p>', image: [{ id: photo.id, path: photo.path }] }, { content: '<p>More below</p>' }], { thread: true });
    const [first, reply] = sim.messages.slice(before);
    expect(first).toMatchObject({ chatId: CHANNEL.id, caption: '<b>Launch</b> day', replyTo: undefined });
    expect(first!.media.map((m) => m.sha256)).toEqual([sha(bytes)]);
    expect(post.releaseId).toBe(String(first!.messageId));
    expect(post.releaseURL).toBe(`https://t.me/${CHANNEL.username}/${first!.messageId}`);
    expect(reply).toMatchObject({ chatId: CHANNEL.id, text: 'More below', replyTo: first!.messageId });
    expect(post.thread.map((i) => i.state)).toEqual(['PUBLISHED']);
  });

  it('a message Telegram refuses ends ERROR with Telegram’s description, and nothing is posted', async () => {
    const before = sim.messages.length;
    sim.injectKind('rejected');
    const post = await api.settle(api.postIdOf(await api.createPost(channelId, {}, [{ content: '<p>refused</p>' }])));
    expect(post.state).toBe('ERROR');
    expect(post.error).toMatch(/can't parse entities/);
    expect(sim.messages.length).toBe(before);
  });

  it('a bot kicked from the channel fails the post and marks the channel for reconnection', async () => {
    sim.injectKind('revoked');
    const post = await api.settle(api.postIdOf(await api.createPost(channelId, {}, [{ content: '<p>after the kick</p>' }])));
    expect(post.state).toBe('ERROR');
    expect(post.error).toMatch(/bot was kicked/);
    expect((await api.listChannels()).find((i) => i.id === channelId)!.refreshNeeded).toBe(true);
  });
});

import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realtimeManualClock, releaseDueJobs, waitFor } from '../../../test/factories.js';
import { buildTestApp, call, type TestApp, type TestOrg } from '../../../test/helpers.js';
import type { ManualClock } from '../../lib/clock.js';
import { startTelegramSimulator, type TelegramSimulator } from '../../platforms/telegram/telegram.simulator.js';
import { startReceiver, type Receiver } from '../../core/webhooks/receiver.testkit.js';

/**
 * Webhooks end to end through the HTTP API: webhooks made with POST /webhooks (each with its own
 * receiver on loopback), a post published through the Telegram simulator by the running worker,
 * and what each receiver gets, by its event and channel filters: exactly one `post.published`
 * per matching webhook, signed with its own secret.
 */

const TOKEN = '123456:AAbbCCddEEffGGhhIIjjKKllMMnnOOppQQ';
const BOT = { id: 123456, username: 'tidings_bot' };

let t: TestApp;
let clock: ManualClock;
let tg: TelegramSimulator;
let org: TestOrg;
const receivers: Record<string, Receiver> = {};
const secrets: Record<string, string> = {};
let news: string;
let sport: string;

beforeAll(async () => {
  tg = await startTelegramSimulator();
  tg.addBot(TOKEN, BOT);
  tg.addChat({ id: -1001000000001, title: 'News', username: 'news', admins: [BOT.id] });
  tg.addChat({ id: -1001000000002, title: 'Sport', username: 'sport', admins: [BOT.id] });
  clock = realtimeManualClock();
  t = await buildTestApp({ clock, startWorker: true, env: { PLATFORM_ORIGINS: `https://api.telegram.org=${tg.origin}`, ALLOW_PRIVATE_TARGETS: 'true' } });
  org = await t.createOrg('Hooked');
  const connect = async (chatId: string) => {
    const res = await call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/social/telegram', payload: { botToken: TOKEN, chatId } });
    expect(res.statusCode, res.body).toBe(201);
    return res.json<{ id: string }>().id;
  };
  news = await connect('@news');
  sport = await connect('@sport');
  const hooks: Record<string, { events?: string[]; integrations?: string[] }> = {
    everything: {},
    publishedOnNews: { events: ['post.published'], integrations: [news] },
    failuresOnly: { events: ['post.failed'] },
    sportOnly: { integrations: [sport] },
  };
  for (const [name, filters] of Object.entries(hooks)) {
    receivers[name] = await startReceiver();
    const res = await call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/webhooks', payload: { name, url: receivers[name].url, ...filters } });
    expect(res.statusCode, res.body).toBe(201);
    secrets[name] = res.json<{ secret: string }>().secret;
  }
});

afterAll(async () => {
  await t?.close();
  await tg?.close();
  for (const r of Object.values(receivers)) await r.close();
});

describe('webhooks through the API', () => {
  it('a post published on one channel reaches each webhook its filters let through, once, signed with its own secret', async () => {
    const res = await call(t.app, org.apiKey, {
      method: 'POST',
      url: '/public/v1/posts',
      payload: { type: 'now', shortLink: false, tags: [], posts: [{ integration: { id: news }, value: [{ content: 'Extra, extra', image: [] }], settings: {} }] },
    });
    expect(res.statusCode, res.body).toBe(201);
    const postId = res.json<{ postId: string }[]>()[0]!.postId;
    const post = await waitFor(
      async () => {
        await releaseDueJobs(t, clock);
        const p = (await call(t.app, org.apiKey, { method: 'GET', url: `/public/v1/posts/${postId}` })).json<{ state: string; releaseId: string; releaseURL: string }>();
        return p.state === 'PUBLISHED' ? p : undefined;
      },
      15_000,
      'the post to be published',
    );
    const types = (name: string) => receivers[name]!.requests.map((r) => r.json.type);
    await waitFor(async () => types('everything').length === 2 && types('publishedOnNews').length === 1, 15_000, 'the deliveries');
    // Give a wrong extra delivery the time to show up before counting.
    await new Promise((r) => setTimeout(r, 500));
    expect(types('everything')).toEqual(['post.scheduled', 'post.published']);
    expect(types('publishedOnNews')).toEqual(['post.published']);
    expect(types('failuresOnly')).toEqual([]);
    expect(types('sportOnly')).toEqual([]);

    const published = receivers.publishedOnNews!.requests[0]!;
    expect(published.json.data).toMatchObject({ postId, rootPostId: postId, releaseId: post.releaseId, releaseURL: post.releaseURL, integration: { id: news, identifier: 'telegram' } });
    for (const name of ['everything', 'publishedOnNews']) {
      for (const r of receivers[name]!.requests) {
        expect(() => new Webhook(secrets[name]!).verify(r.body, r.headers as Record<string, string>)).not.toThrow();
        expect(() => new Webhook(secrets[name === 'everything' ? 'publishedOnNews' : 'everything']!).verify(r.body, r.headers as Record<string, string>)).toThrow();
      }
    }
    // One event, two deliveries: the same event id, each webhook its own webhook-id.
    const inEverything = receivers.everything!.requests[1]!;
    expect(inEverything.json.id).toBe(published.json.id);
    expect(inEverything.headers['webhook-id']).not.toBe(published.headers['webhook-id']);

    // The delivery log says what the receiver saw.
    const log = await call(t.app, org.apiKey, { method: 'GET', url: `/public/v1/webhooks/${(await hookId('publishedOnNews'))}/deliveries` });
    expect(log.statusCode).toBe(200);
    expect(log.json<{ deliveries: { deliveryId: string; eventType: string; statusCode: number | null; state: string }[] }>().deliveries).toEqual([
      expect.objectContaining({ deliveryId: published.headers['webhook-id'], eventType: 'post.published', statusCode: 200, state: 'delivered' }),
    ]);
  });
});

async function hookId(name: string): Promise<string> {
  const res = await call(t.app, org.apiKey, { method: 'GET', url: '/public/v1/webhooks' });
  return res.json<{ id: string; name: string }[]>().find((w) => w.name === name)!.id;
}

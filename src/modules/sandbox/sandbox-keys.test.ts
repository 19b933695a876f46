import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChannel } from '../../../test/factories.js';
import { call, useTestApp } from '../../../test/helpers.js';

/**
 * A sandbox key (`tdk_test_…`, issue 28) sees and touches the organisation's sandbox channels and
 * their posts only: live ones are NOT_FOUND to it, lists leave them out, and it cannot connect a
 * live channel. The organisation's live key still sees everything.
 */
// a local feed for the autopilot checks (loopback needs ALLOW_PRIVATE_TARGETS)
const { t, orgs } = useTestApp({ env: { ALLOW_PRIVATE_TARGETS: 'true' } }, 'Acme');
let feedServer: Server;
let feedUrl: string;
beforeAll(async () => {
  feedServer = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/rss+xml' });
    res.end('<?xml version="1.0"?><rss version="2.0"><channel><title>News</title><link>https://acme.test/</link><item><guid>a</guid><title>A</title><link>https://acme.test/a</link></item></channel></rss>');
  });
  await new Promise<void>((r) => feedServer.listen(0, '127.0.0.1', r));
  feedUrl = `http://127.0.0.1:${(feedServer.address() as AddressInfo).port}/feed.xml`;
});
afterAll(() => new Promise<void>((r) => feedServer.close(() => r())));
let sandboxKey: string;
let live: { id: string };
let sandboxChannel: { id: string };
let livePost: string;
let sandboxPost: string;
const week = { startDate: '2030-01-01T00:00:00.000Z', endDate: '2030-01-08T00:00:00.000Z' };

const draft = (integration: string, content: string) => ({
  type: 'draft',
  date: '2030-01-02T10:00:00.000Z',
  shortLink: false,
  tags: [],
  posts: [{ integration: { id: integration }, settings: { __type: 'telegram' }, value: [{ content, image: [] }] }],
});

beforeAll(async () => {
  live = await createChannel(t, orgs.acme, 'telegram', { name: 'Live Telegram' });
  const made = await t.deps.services.organizations.createApiKey(orgs.acme.id, 'tests', { sandbox: true });
  sandboxKey = made.apiKey;
  const connected = await call(t.app, sandboxKey, { method: 'POST', url: '/public/v1/sandbox/channels', payload: { identifier: 'telegram' } });
  expect(connected.statusCode, connected.body).toBe(201);
  sandboxChannel = connected.json();
  const a = await call(t.app, orgs.acme.apiKey, { method: 'POST', url: '/public/v1/posts', payload: draft(live.id, '<p>live</p>') });
  expect(a.statusCode, a.body).toBe(201);
  livePost = a.json<{ postId: string }[]>()[0]!.postId;
  const b = await call(t.app, sandboxKey, { method: 'POST', url: '/public/v1/posts', payload: draft(sandboxChannel.id, '<p>sandbox</p>') });
  expect(b.statusCode, b.body).toBe(201);
  sandboxPost = b.json<{ postId: string }[]>()[0]!.postId;
});

describe('a sandbox key', () => {
  it('is a tdk_test_ key, listed as sandbox', async () => {
    expect(sandboxKey).toMatch(/^tdk_test_[A-Za-z0-9]{40}$/);
    const keys = await t.deps.repositories.organizations.listApiKeys(orgs.acme.id);
    expect(keys.find((k) => k.name === 'tests')).toMatchObject({ sandbox: true, prefix: sandboxKey.slice(0, 15) });
  });

  it('lists sandbox channels and their posts only; the live key lists both', async () => {
    const mine = await call(t.app, sandboxKey, { method: 'GET', url: '/public/v1/integrations' });
    expect(mine.json<{ id: string }[]>().map((i) => i.id)).toEqual([sandboxChannel.id]);
    const all = await call(t.app, orgs.acme.apiKey, { method: 'GET', url: '/public/v1/integrations' });
    expect(all.json<{ id: string }[]>().map((i) => i.id).sort()).toEqual([live.id, sandboxChannel.id].sort());
    const posts = await call(t.app, sandboxKey, { method: 'GET', url: '/public/v1/posts', query: week });
    expect(posts.json<{ posts: { id: string }[] }>().posts.map((p) => p.id)).toEqual([sandboxPost]);
    const allPosts = await call(t.app, orgs.acme.apiKey, { method: 'GET', url: '/public/v1/posts', query: week });
    expect(allPosts.json<{ posts: { id: string }[] }>().posts.map((p) => p.id).sort()).toEqual([livePost, sandboxPost].sort());
  });

  it('gets 404 for a live channel or post, whatever it tries, and nothing changes', async () => {
    const tries = [
      { method: 'PUT', url: `/public/v1/integrations/${live.id}`, payload: { name: 'taken' } },
      { method: 'DELETE', url: `/public/v1/integrations/${live.id}` },
      { method: 'GET', url: `/public/v1/integration-settings/${live.id}` },
      { method: 'GET', url: `/public/v1/find-slot/${live.id}` },
      { method: 'GET', url: `/public/v1/analytics/${live.id}?date=7` },
      { method: 'GET', url: `/public/v1/posts/${livePost}` },
      { method: 'DELETE', url: `/public/v1/posts/${livePost}` },
    ] as const;
    for (const req of tries) {
      const res = await call(t.app, sandboxKey, req);
      expect(res.statusCode, `${req.method} ${req.url}: ${res.body}`).toBe(404);
    }
    // a post on a live channel is refused as one on another organisation's channel is: the field named
    const sneaky = await call(t.app, sandboxKey, { method: 'POST', url: '/public/v1/posts', payload: draft(live.id, '<p>sneaky</p>') });
    expect(sneaky.statusCode).toBe(400);
    expect(sneaky.json<{ fields: { path: string }[] }>().fields.map((f) => f.path)).toEqual(['posts.0.integration.id']);
    const still = await call(t.app, orgs.acme.apiKey, { method: 'GET', url: `/public/v1/posts/${livePost}` });
    expect(still.statusCode).toBe(200);
    const channels = await call(t.app, orgs.acme.apiKey, { method: 'GET', url: '/public/v1/integrations' });
    expect(channels.json<{ id: string; name: string }[]>().find((i) => i.id === live.id)!.name).toBe('Live Telegram');
  });

  it('reaches its own sandbox channel and post', async () => {
    expect((await call(t.app, sandboxKey, { method: 'GET', url: `/public/v1/posts/${sandboxPost}` })).statusCode).toBe(200);
    expect((await call(t.app, sandboxKey, { method: 'GET', url: `/public/v1/find-slot/${sandboxChannel.id}` })).statusCode).toBe(200);
  });

  it('cannot connect a live channel (403), nor use MCP', async () => {
    const res = await call(t.app, sandboxKey, { method: 'POST', url: '/public/v1/social/telegram', payload: { botToken: '1:x', chatId: '@x' } });
    expect(res.statusCode, res.body).toBe(403);
    expect(res.json<{ message: string }>().message).toMatch(/sandbox channels only/);
    const mcp = await t.app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { authorization: `Bearer ${sandboxKey}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
      payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });
    expect(mcp.statusCode).toBe(403);
  });

  it('sees the repeating posts, evergreen queues and feeds on sandbox channels only; the others are 404 whatever it tries', async () => {
    const api = (key: string, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
      call(t.app, key, { method, url: `/public/v1${url}`, ...(payload ? { payload } : {}) });
    const made = async (key: string, url: string, payload: object) => {
      const res = await api(key, 'POST', url, payload);
      expect(res.statusCode, res.body).toBe(201);
      return res.json<{ id?: string; series?: { id: string } }>();
    };
    const rule = { frequency: 'daily', time: '09:00', timeZone: 'UTC', startDate: '2030-01-01', count: 3 };
    const seriesOn = (id: string) => ({ rule, type: 'draft', posts: draft(id, '<p>again</p>').posts });
    const liveSeries = (await made(orgs.acme.apiKey, '/series', seriesOn(live.id))).series!.id;
    const mySeries = (await made(sandboxKey, '/series', seriesOn(sandboxChannel.id))).series!.id;
    const liveQueue = (await made(orgs.acme.apiKey, '/evergreen', { name: 'Live', integrations: [live.id], order: 'sequence' })).id!;
    const everyQueue = (await made(orgs.acme.apiKey, '/evergreen', { name: 'Every channel', integrations: [], order: 'sequence' })).id!;
    const myQueue = (await made(sandboxKey, '/evergreen', { name: 'Mine', integrations: [sandboxChannel.id], order: 'sequence' })).id!;
    const liveFeed = (await made(orgs.acme.apiKey, '/feeds', { url: feedUrl, integrationIds: [live.id] })).id!;
    const myFeed = (await made(sandboxKey, '/feeds', { url: feedUrl, integrationIds: [sandboxChannel.id] })).id!;

    // lists: its own only; the live key lists all
    expect((await api(sandboxKey, 'GET', '/series')).json<{ series: { id: string }[] }>().series.map((s) => s.id)).toEqual([mySeries]);
    expect((await api(sandboxKey, 'GET', '/evergreen')).json<{ id: string }[]>().map((q) => q.id)).toEqual([myQueue]);
    expect((await api(sandboxKey, 'GET', '/feeds')).json<{ feeds: { id: string }[] }>().feeds.map((f) => f.id)).toEqual([myFeed]);
    expect((await api(orgs.acme.apiKey, 'GET', '/series')).json<{ series: unknown[] }>().series).toHaveLength(2);
    expect((await api(orgs.acme.apiKey, 'GET', '/evergreen')).json<unknown[]>()).toHaveLength(3);

    // the live ones (and the queue that fills every channel) are 404, and nothing changes
    const tries: [method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object][] = [
      ['GET', `/series/${liveSeries}`],
      ['DELETE', `/series/${liveSeries}`],
      ['GET', `/evergreen/${liveQueue}`],
      ['PATCH', `/evergreen/${liveQueue}`, { name: 'taken' }],
      ['DELETE', `/evergreen/${everyQueue}`],
      ['GET', `/evergreen/${liveQueue}/items`],
      ['POST', `/evergreen/${liveQueue}/items`, { content: 'sneaky' }],
      ['POST', `/evergreen/${everyQueue}/fill`],
      ['GET', `/evergreen/${everyQueue}/plan`],
      ['POST', `/evergreen/${liveQueue}/channels/${live.id}/resume`],
      ['GET', `/feeds/${liveFeed}`],
      ['GET', `/feeds/${liveFeed}/items`],
      ['POST', `/feeds/${liveFeed}/poll`],
      ['DELETE', `/feeds/${liveFeed}`],
    ];
    for (const [method, url, payload] of tries) {
      const res = await api(sandboxKey, method, url, payload);
      expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(404);
    }
    expect((await api(orgs.acme.apiKey, 'GET', `/series/${liveSeries}`)).statusCode).toBe(200);
    expect((await api(orgs.acme.apiKey, 'GET', `/evergreen/${liveQueue}`)).json<{ name: string }>().name).toBe('Live');
    expect((await api(orgs.acme.apiKey, 'GET', `/evergreen/${liveQueue}/items`)).json<unknown[]>()).toHaveLength(0);
    expect((await api(orgs.acme.apiKey, 'GET', `/evergreen/${everyQueue}`)).statusCode).toBe(200);
    expect((await api(orgs.acme.apiKey, 'GET', `/feeds/${liveFeed}`)).statusCode).toBe(200);

    // a feed on a live channel is refused with the field named
    const sneaky = await api(sandboxKey, 'POST', '/feeds', { url: feedUrl, integrationIds: [sandboxChannel.id, live.id] });
    expect(sneaky.statusCode).toBe(400);
    expect(sneaky.json<{ fields: { path: string }[] }>().fields.map((f) => f.path)).toEqual(['integrationIds.1']);
    const moved = await api(sandboxKey, 'PATCH', `/feeds/${myFeed}`, { integrationIds: [live.id] });
    expect(moved.statusCode).toBe(400);

    // its own are reachable
    expect((await api(sandboxKey, 'GET', `/series/${mySeries}`)).statusCode).toBe(200);
    expect((await api(sandboxKey, 'GET', `/evergreen/${myQueue}/plan`)).statusCode).toBe(200);
    expect((await api(sandboxKey, 'GET', `/feeds/${myFeed}/items`)).statusCode).toBe(200);
    expect((await api(sandboxKey, 'DELETE', `/series/${mySeries}`)).statusCode).toBe(200);
  });
});

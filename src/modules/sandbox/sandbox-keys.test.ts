import { beforeAll, describe, expect, it } from 'vitest';
import { createChannel } from '../../../test/factories.js';
import { call, useTestApp } from '../../../test/helpers.js';

/**
 * A sandbox key (`tdk_test_…`, issue 28) sees and touches the organisation's sandbox channels and
 * their posts only: live ones are NOT_FOUND to it, lists leave them out, and it cannot connect a
 * live channel. The organisation's live key still sees everything.
 */
const { t, orgs } = useTestApp({ env: {} }, 'Acme');
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
});

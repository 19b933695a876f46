import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { picture, platformApi, sha } from '../../test/platform-api-kit.js';
import { BIN } from '../../test/e2e/processes.js';
import { callError, callOk, connectSse, connectStreamable } from '../../test/mcp/mcp-client.js';
import type { BlueskySimulator } from '../platforms/bluesky/bluesky.simulator.js';
import { blueskySimulator, LOGIN, platformOriginsFor } from '../platforms/bluesky/bluesky.testkit.js';

/**
 * A whole scheduling conversation, as an assistant holds it, over every HTTP transport: list the
 * channels, read the platform's rules and settings schema, find a free slot, import a picture
 * from a URL, create the post, list it, edit it, move it to now, see the platform receive it, and
 * delete a draft. The Bluesky simulator is the platform; the SDK's own client is the assistant.
 */

const api = platformApi('bluesky');
let sim: BlueskySimulator;
let origin: string;
let imageHost: Server;
let imageUrl: string;
let imageBytes: Buffer;
let channelId: string;
let stranger: { apiKey: string };
const publishedIds: string[] = [];

beforeAll(async () => {
  sim = await blueskySimulator();
  await api.start({ env: { PLATFORM_ORIGINS: platformOriginsFor(sim), ALLOW_PRIVATE_TARGETS: 'true' } });
  origin = await api.listen();
  imageBytes = await picture(11);
  imageHost = createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(imageBytes));
  await new Promise<void>((r) => imageHost.listen(0, '127.0.0.1', r));
  imageUrl = `http://127.0.0.1:${(imageHost.address() as AddressInfo).port}/launch.png`;
  const connected = await api.connectForm(LOGIN);
  expect(connected.statusCode, connected.body).toBe(201);
  channelId = connected.json<{ id: string }>().id;
  stranger = await api.t.createOrg('Stranger');
});

afterAll(async () => {
  await new Promise((r) => imageHost?.close(r));
  await api.close();
  await sim?.close();
});

/** The SDK client over Streamable HTTP that never keeps the session it is given: every request stands alone. */
async function connectStateless(url: string, credential: string): Promise<Client> {
  const client = new SdkClient({ name: 'tidings-test-stateless', version: '1.0.0' });
  const forget: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    const headers = new Headers(res.headers);
    headers.delete('mcp-session-id');
    return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
  };
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: forget, requestInit: { headers: { authorization: credential } } }));
  return client;
}

/** `tidings mcp` spawned as a desktop assistant spawns it (stdio), relaying to the app's /mcp. */
async function connectStdio(): Promise<Client> {
  const client = new SdkClient({ name: 'tidings-test-stdio', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--key', api.org.apiKey, '--url', origin], stderr: 'ignore' }));
  return client;
}

const transports: [string, () => Promise<Client>][] = [
  ['Streamable HTTP with a session, key after Bearer', () => connectStreamable(`${origin}/mcp`, `Bearer ${api.org.apiKey}`)],
  ['Streamable HTTP without a session (stateless JSON answers)', () => connectStateless(`${origin}/mcp`, api.org.apiKey)],
  ['Streamable HTTP at /mcp/{apiKey}', () => connectStreamable(`${origin}/mcp/${api.org.apiKey}`)],
  ['the legacy HTTP+SSE transport at /sse/{apiKey}', () => connectSse(origin, api.org.apiKey)],
  ['stdio: `tidings mcp` as a child process', connectStdio],
];

describe('a scheduling conversation over MCP ends with the post on the platform', () => {
  it.each(transports)('%s', { timeout: 60_000 }, async (_name, connect) => {
    const client = await connect();
    try {
      const { channels } = await callOk<{ channels: { id: string; identifier: string }[] }>(client, 'list_channels');
      expect(channels).toEqual([expect.objectContaining({ id: channelId, identifier: 'bluesky' })]);

      const rules = await callOk<{ output: { maxLength: number; counting: string; media: { maxItems: number } } }>(client, 'get_channel_settings', { channelId });
      expect(rules.output).toMatchObject({ maxLength: 300, counting: 'graphemes' });

      const slot = await callOk<{ date: string }>(client, 'find_free_slot', { channelId });
      expect(Date.parse(slot.date)).toBeGreaterThan(api.clock.now());

      const media = await callOk<{ id: string; path: string }>(client, 'upload_media_from_url', { url: imageUrl });
      const records = sim.records.length;

      const created = await callOk<{ posts: { postId: string; group: string }[] }>(client, 'create_posts', {
        type: 'schedule',
        date: slot.date,
        posts: [{ integration: { id: channelId }, value: [{ content: 'Launch day draft', image: [{ id: media.id, path: media.path, alt: 'The rocket' }] }] }],
      });
      const [{ postId, group }] = created.posts as [{ postId: string; group: string }];

      const listed = await callOk<{ posts: { id: string; state: string }[] }>(client, 'list_posts', {
        startDate: new Date(Date.parse(slot.date) - 60_000).toISOString(),
        endDate: new Date(Date.parse(slot.date) + 60_000).toISOString(),
      });
      expect(listed.posts).toContainEqual(expect.objectContaining({ id: postId, state: 'QUEUE' }));

      // edit the text in place (the same post row, the same group)
      await callOk(client, 'create_posts', {
        type: 'update',
        date: slot.date,
        posts: [{ integration: { id: channelId }, group, value: [{ id: postId, content: 'Launch day!', image: [{ id: media.id, path: media.path, alt: 'The rocket' }] }] }],
      });
      expect(await callOk<{ content: string }>(client, 'get_post', { postId })).toMatchObject({ content: 'Launch day!' });

      // move it to now: the publisher takes it
      const moved = await callOk<{ state: string; publishDate: string }>(client, 'reschedule_post', { postId, date: new Date(api.clock.now()).toISOString() });
      expect(moved.state).toBe('QUEUE');
      const published = await api.settle(postId);
      expect({ state: published.state, error: published.error }).toEqual({ state: 'PUBLISHED', error: null });
      publishedIds.push(postId);
      expect(sim.records).toHaveLength(records + 1);
      const record = sim.records.at(-1)!;
      expect(record).toMatchObject({ uri: published.releaseId, text: 'Launch day!' });
      expect(record.media.map((m) => m.sha256)).toEqual([sha(imageBytes)]);
      expect(await callOk<{ state: string; releaseURL: string }>(client, 'get_post', { postId })).toMatchObject({ state: 'PUBLISHED', releaseURL: published.releaseURL });

      // a draft, then deleted: gone for every later call
      const draft = await callOk<{ posts: { postId: string }[] }>(client, 'create_posts', {
        type: 'draft',
        date: slot.date,
        posts: [{ integration: { id: channelId }, value: [{ content: 'never mind' }] }],
      });
      const draftId = draft.posts[0]!.postId;
      expect(await callOk<{ deleted: string[] }>(client, 'delete_post', { postId: draftId })).toEqual({ deleted: [draftId] });
      expect((await callError(client, 'get_post', { postId: draftId })).code).toBe('NOT_FOUND');
    } finally {
      await client.close();
    }
  });

  it("another organisation's key sees none of it: its ids answer not found, as in the API", async () => {
    const client = await connectStreamable(`${origin}/mcp`, stranger.apiKey);
    try {
      expect((await callOk<{ channels: unknown[] }>(client, 'list_channels')).channels).toEqual([]);
      const { posts } = await callOk<{ posts: unknown[] }>(client, 'list_posts', { startDate: '2000-01-01T00:00:00Z', endDate: '2100-01-01T00:00:00Z' });
      expect(posts).toEqual([]);
      expect(publishedIds.length).toBeGreaterThan(0);
      for (const [tool, args] of [
        ['get_post', { postId: publishedIds[0] }],
        ['delete_post', { postId: publishedIds[0] }],
        ['reschedule_post', { postId: publishedIds[0], date: '2030-01-01T00:00:00Z' }],
        ['get_channel_settings', { channelId }],
        ['find_free_slot', { channelId }],
        ['disconnect_channel', { channelId }],
      ] as const) {
        const err = await callError(client, tool, args);
        expect(err.code, tool).toBe('NOT_FOUND');
      }
      const err = await callError(client, 'create_posts', { type: 'now', posts: [{ integration: { id: channelId }, value: [{ content: 'hijack' }] }] });
      expect(err.fields?.map((f) => f.path)).toEqual(['posts.0.integration.id']);
    } finally {
      await client.close();
    }
  });
});

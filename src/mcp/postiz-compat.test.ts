import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { picture, platformApi, sha } from '../../test/platform-api-kit.js';
import { callError, callOk, connectSse, connectStreamable } from '../../test/mcp/mcp-client.js';
import type { BlueskySimulator } from '../platforms/bluesky/bluesky.simulator.js';
import { ALICE, blueskySimulator, LOGIN, platformOriginsFor } from '../platforms/bluesky/bluesky.testkit.js';

/**
 * An assistant configured for the reference service (Postiz) talks to Tidings with only the host
 * changed: its 12 tool names are listed over `/mcp/{apiKey}` and the legacy SSE transport, and a
 * post made with its argument shapes (a picture imported from a URL, a comment under the post)
 * is published on the Bluesky simulator by the worker.
 */

const POSTIZ_TOOLS = [
  'integrationList',
  'groupList',
  'integrationSchema',
  'triggerTool',
  'schedulePostTool',
  'postsListTool',
  'postSettingsTool',
  'uploadFromUrlTool',
  'generateImageTool',
  'generateVideoOptions',
  'videoFunctionTool',
  'generateVideoTool',
];
// triggerTool only reads from the platform, as Tidings' run_channel_tool (the reference marks it as changing: its token refresh may disconnect)
const READ_ONLY = ['integrationList', 'groupList', 'integrationSchema', 'triggerTool', 'postsListTool', 'generateVideoOptions', 'videoFunctionTool'];

const api = platformApi('bluesky');
let sim: BlueskySimulator;
let origin: string;
let channelId: string;
let client: Client;
let photoServer: Server;
let photoUrl: string;
let photo: Buffer;

const hourFrom = (ms: number) => new Date(Date.now() + ms * 3600_000).toISOString();

beforeAll(async () => {
  sim = await blueskySimulator();
  // the picture is fetched from a loopback server, which the media fetcher refuses unless private targets are allowed
  await api.start({ env: { PLATFORM_ORIGINS: platformOriginsFor(sim), ALLOW_PRIVATE_TARGETS: 'true' } });
  const res = await api.connectForm(LOGIN);
  expect(res.statusCode, res.body).toBe(201);
  channelId = res.json<{ id: string }>().id;
  origin = await api.listen();
  photo = await picture(7);
  photoServer = createServer((req, reply) => {
    if (req.url === '/photo.png') reply.writeHead(200, { 'content-type': 'image/png' }).end(photo);
    else reply.writeHead(404).end();
  });
  await new Promise<void>((r) => photoServer.listen(0, '127.0.0.1', r));
  photoUrl = `http://127.0.0.1:${(photoServer.address() as AddressInfo).port}/photo.png`;
  // the key in the URL, no Authorization header: how Postiz hands its MCP address to assistants
  client = await connectStreamable(`${origin}/mcp/${api.org.apiKey}`);
});

afterAll(async () => {
  await client?.close();
  await new Promise((r) => photoServer?.close(r));
  await api.close();
  await sim?.close();
});

describe('the Postiz tool names', () => {
  it('are listed over /mcp/{apiKey} beside Tidings\' own tools, with the read-only ones marked', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining([...POSTIZ_TOOLS, 'list_channels', 'create_posts']));
    for (const name of POSTIZ_TOOLS) {
      const tool = tools.find((t) => t.name === name)!;
      expect(tool.annotations?.readOnlyHint, name).toBe(READ_ONLY.includes(name));
      expect(tool.inputSchema.type, name).toBe('object');
    }
    const schedule = tools.find((t) => t.name === 'schedulePostTool')!;
    expect(schedule.inputSchema).toMatchObject({
      required: ['socialPost'],
      properties: { socialPost: { type: 'array', items: { properties: { integrationId: {}, date: {}, type: {}, shortLink: {}, postsAndComments: { items: { properties: { content: {}, attachments: {} } } }, settings: {} } } } },
    });
  });

  it('are listed and callable over the legacy SSE transport', async () => {
    const sse = await connectSse(origin, api.org.apiKey);
    try {
      const names = (await sse.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining([...POSTIZ_TOOLS, 'list_channels']));
      const listed = await callOk<{ output: { id: string }[] }>(sse, 'integrationList');
      expect(listed.output.map((c) => c.id)).toEqual([channelId]);
    } finally {
      await sse.close();
    }
  });
});

describe('a post made with the reference shapes', () => {
  it('lists the channel and its group, gives the platform rules, imports a picture, and publishes the post with a comment', async () => {
    const listed = await callOk<{ output: Record<string, unknown>[] }>(client, 'integrationList');
    expect(listed.output).toEqual([{ id: channelId, name: ALICE.displayName, picture: expect.any(String), platform: 'bluesky', disabled: false, display: ALICE.handle, refreshNeeded: false }]);

    // groups (customers): the channel in one group, listed through it and not through another
    const { groups, integrations } = api.t.deps.services;
    const clientA = await groups.createGroup(api.org.id, 'Client A');
    const clientB = await groups.createGroup(api.org.id, 'Client B');
    await integrations.updateIntegration(api.org.id, channelId, { customer: clientA.id });
    expect((await callOk<{ output: unknown[] }>(client, 'groupList')).output).toEqual([
      { id: clientA.id, name: 'Client A' },
      { id: clientB.id, name: 'Client B' },
    ]);
    expect((await callOk<{ output: { id: string; customer?: unknown }[] }>(client, 'integrationList', { group: clientA.id })).output).toEqual([
      expect.objectContaining({ id: channelId, customer: { id: clientA.id, name: 'Client A' } }),
    ]);
    expect((await callOk<{ output: unknown[] }>(client, 'integrationList', { group: clientB.id })).output).toEqual([]);

    // the platform's rules by identifier: what the channel's own settings say, without its saved defaults
    const schema = await callOk<{ output: Record<string, unknown> }>(client, 'integrationSchema', { isPremium: false, platform: 'bluesky' });
    const { defaults: _defaults, ...channelRules } = (await integrations.getSettings(api.org.id, channelId)).output;
    expect(schema.output).toEqual(JSON.parse(JSON.stringify(channelRules)));
    expect(schema.output).toMatchObject({ maxLength: 300, counting: 'graphemes', settings: 'No additional settings required', tools: [] });
    expect(typeof schema.output.rules).toBe('string');

    const uploaded = await callOk<{ id: string; path: string; type: string }>(client, 'uploadFromUrlTool', { url: photoUrl });
    expect(uploaded.type).toBe('image');

    const scheduled = await callOk<{ output: { postId: string; integration: string }[] }>(client, 'schedulePostTool', {
      socialPost: [
        {
          integrationId: channelId,
          isPremium: false,
          date: new Date().toISOString(),
          shortLink: false,
          type: 'now',
          postsAndComments: [
            { content: '<p>Hello from an assistant</p>', attachments: [uploaded.path] },
            { content: '<p>And a comment</p>', attachments: [] },
          ],
          settings: [],
        },
      ],
    });
    expect(scheduled.output).toEqual([{ postId: expect.any(String), integration: channelId, group: expect.any(String) }]);
    const postId = scheduled.output[0]!.postId;

    const post = await api.settle(postId, { thread: true });
    expect({ state: post.state, error: post.error }).toEqual({ state: 'PUBLISHED', error: null });
    const [first, comment] = sim.records;
    expect(first).toMatchObject({ uri: post.releaseId, did: ALICE.did, text: 'Hello from an assistant' });
    expect(first!.media.map((m) => m.sha256)).toEqual([sha(photo)]);
    expect(comment).toMatchObject({ text: 'And a comment', reply: { parent: { uri: first!.uri } } });
    expect(sim.records).toHaveLength(2);
    expect((await api.getPost(postId)) as unknown).toMatchObject({ creationMethod: 'MCP' });

    const posts = await callOk<{ output: { posts: Record<string, unknown>[] } }>(client, 'postsListTool', { startDate: hourFrom(-1), endDate: hourFrom(1) });
    expect(posts.output.posts).toEqual([
      expect.objectContaining({
        id: postId,
        state: 'PUBLISHED',
        error: null,
        content: '<p>Hello from an assistant</p>',
        integrationId: channelId,
        platform: 'bluesky',
        integrationName: ALICE.displayName,
        releaseURL: post.releaseURL,
      }),
    ]);
    // by group (customer), as the reference's `customer`
    expect((await callOk<{ output: { posts: unknown[] } }>(client, 'postsListTool', { startDate: hourFrom(-1), endDate: hourFrom(1), customer: clientB.id })).output.posts).toEqual([]);
  });

  it('merges postSettingsTool pairs into a draft\'s settings, content and date unchanged', async () => {
    const date = hourFrom(48);
    const made = await callOk<{ output: { postId: string }[] }>(client, 'schedulePostTool', {
      socialPost: [{ integrationId: channelId, date, type: 'draft', shortLink: false, postsAndComments: [{ content: '<p>Later</p>', attachments: [] }], settings: [{ key: 'first', value: 1 }] }],
    });
    const postId = made.output[0]!.postId;
    const changed = await callOk<{ output: { postId: string; publishDate: string; settings: Record<string, unknown> } }>(client, 'postSettingsTool', {
      id: postId,
      settings: [{ key: 'second', value: 'two' }],
    });
    expect(changed.output).toEqual({ postId, publishDate: new Date(date).toISOString(), settings: { __type: 'bluesky', first: 1, second: 'two' } });
    const stored = await api.getPost(postId);
    expect(stored).toMatchObject({ state: 'DRAFT', content: '<p>Later</p>', publishDate: new Date(date).toISOString() });
    expect((await callError(client, 'postSettingsTool', { id: '00000000-0000-4000-8000-000000000000', settings: [{ key: 'a', value: 1 }] })).code).toBe('NOT_FOUND');
  });
});

describe('argument errors and what is not offered', () => {
  const item = { content: '<p>x</p>', attachments: [] };

  it('names the socialPost field that is missing or refused, in the reference\'s shape', async () => {
    const missing = await callError(client, 'schedulePostTool', { socialPost: [{ date: hourFrom(1), type: 'schedule', shortLink: false, postsAndComments: [item], settings: [] }] });
    expect(missing.code).toBe('VALIDATION_FAILED');
    expect(missing.fields?.map((f) => f.path)).toEqual(['socialPost.0.integrationId']);

    const noDate = await callError(client, 'schedulePostTool', { socialPost: [{ integrationId: channelId, type: 'schedule', postsAndComments: [item] }] });
    expect(noDate.fields?.map((f) => f.path)).toEqual(['socialPost.0.date']);

    const unknownChannel = await callError(client, 'schedulePostTool', {
      socialPost: [{ integrationId: '00000000-0000-4000-8000-000000000000', date: hourFrom(1), type: 'schedule', postsAndComments: [item] }],
    });
    expect(unknownChannel.fields?.map((f) => f.path)).toEqual(['socialPost.0.integrationId']);

    const outside = await callError(client, 'schedulePostTool', {
      socialPost: [{ integrationId: channelId, date: hourFrom(1), type: 'schedule', postsAndComments: [{ content: '<p>x</p>', attachments: ['https://elsewhere.example/cat.png'] }] }],
    });
    expect(outside.fields).toEqual([{ path: 'socialPost.0.postsAndComments.0.attachments.0', message: expect.stringContaining('uploadFromUrlTool') }]);

    const before = (await callOk<{ output: { posts: unknown[] } }>(client, 'postsListTool', { startDate: hourFrom(-1), endDate: hourFrom(100) })).output.posts.length;
    const tooLong = await callError(client, 'schedulePostTool', {
      socialPost: [
        { integrationId: channelId, date: hourFrom(2), type: 'schedule', postsAndComments: [{ content: '<p>fine</p>' }] },
        { integrationId: channelId, date: hourFrom(3), type: 'schedule', postsAndComments: [{ content: `<p>${'a'.repeat(301)}</p>` }] },
      ],
    });
    expect(tooLong.fields?.map((f) => f.path)).toEqual(['socialPost.1.postsAndComments.0.content']);
    // the first entry was created before the second was refused, and the error says so
    expect(tooLong.message).toContain('earlier entries were created');
    expect((await callOk<{ output: { posts: unknown[] } }>(client, 'postsListTool', { startDate: hourFrom(-1), endDate: hourFrom(100) })).output.posts).toHaveLength(before + 1);

    const badUrl = await callError(client, 'uploadFromUrlTool', { url: 'ftp://example.com/a.png' });
    expect(badUrl.fields?.map((f) => f.path)).toEqual(['url']);
    const badPlatform = await callError(client, 'integrationSchema', { isPremium: false, platform: 'myspace' });
    expect(badPlatform.fields?.map((f) => f.path)).toEqual(['platform']);
    const badMethod = await callError(client, 'triggerTool', { integrationId: channelId, methodName: 'boards', dataSchema: [] });
    expect(badMethod).toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining('boards') });
  });

  it('generateImageTool says image generation is not offered here', async () => {
    const err = await callError(client, 'generateImageTool', { prompt: 'a lighthouse at dawn' });
    expect(err).toMatchObject({ code: 'PLATFORM_NOT_AVAILABLE', status: 501, message: expect.stringContaining('Image generation is not offered by this deployment') });
    expect((await callError(client, 'generateImageTool', {})).fields?.map((f) => f.path)).toEqual(['prompt']);
  });

  it('the video tools answer the built-in provider, its functions, and name its parameters as the pairs given', async () => {
    const options = await callOk<{ video: { type: string; output: string; tools: { functionName: string }[] }[] }>(client, 'generateVideoOptions');
    const slides = options.video.find((v) => v.type === 'slides');
    expect(slides).toMatchObject({ output: expect.stringContaining('vertical') });
    expect(slides!.tools.map((t) => t.functionName)).toEqual(expect.arrayContaining(['listTemplates', 'listFonts']));
    const templates = await callOk<{ templates: { id: string }[] }>(client, 'videoFunctionTool', { identifier: 'slides', functionName: 'listTemplates' });
    expect(templates.templates.length).toBeGreaterThan(0);
    const unknownFn = await callError(client, 'videoFunctionTool', { identifier: 'slides', functionName: 'listVoices' });
    expect(unknownFn.fields?.map((f) => f.path)).toEqual(['functionName']);

    const noSlides = await callError(client, 'generateVideoTool', { identifier: 'slides', output: 'vertical', customParams: [{ key: 'template', value: 'title' }] });
    expect(noSlides.code).toBe('VALIDATION_FAILED');
    expect(noSlides.fields).toEqual([expect.objectContaining({ path: 'customParams', message: expect.stringContaining('"slides"') })]);
    const badFormat = await callError(client, 'generateVideoTool', { identifier: 'slides', output: 'square', customParams: [] });
    expect(badFormat.fields?.map((f) => f.path)).toEqual(['output']);
  });
});

import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode, McpError, type TextResourceContents } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChannel } from '../../test/factories.js';
import { useTestApp } from '../../test/helpers.js';
import { connectStreamable } from '../../test/mcp/mcp-client.js';
import { PLATFORM_IDENTIFIERS } from '../platforms/platform.js';

const { t, orgs } = useTestApp({ env: { PUBLIC_URL: 'http://127.0.0.1:1' } }, 'Acme', 'Beta');
let acme: Client;
let beta: Client;
let channelId: string;

beforeAll(async () => {
  const origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
  const channel = await createChannel(t, orgs.acme, 'bluesky', { name: 'Acme on Bluesky' });
  channelId = channel.id;
  acme = await connectStreamable(`${origin}/mcp`, `Bearer ${orgs.acme.apiKey}`);
  beta = await connectStreamable(`${origin}/mcp`, `Bearer ${orgs.beta.apiKey}`);
});

afterAll(async () => {
  await acme?.close();
  await beta?.close();
});

async function readJson<T>(client: Client, uri: string): Promise<T> {
  const { contents } = await client.readResource({ uri });
  expect(contents).toHaveLength(1);
  const [c] = contents as TextResourceContents[];
  expect(c).toMatchObject({ uri, mimeType: 'application/json' });
  return JSON.parse(c!.text) as T;
}

/** The JSON-RPC error a request was answered with. */
async function rpcError(p: Promise<unknown>): Promise<McpError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(McpError);
  return err as McpError;
}

describe('MCP resources', () => {
  it('lists the channels and one rules resource per platform, and the rules template', async () => {
    const { resources } = await acme.listResources();
    const uris = resources.map((r) => r.uri);
    expect(uris).toContain('tidings://channels');
    expect(uris).toEqual(expect.arrayContaining(PLATFORM_IDENTIFIERS.map((id) => `tidings://platforms/${id}/rules`)));
    expect(resources.find((r) => r.uri === 'tidings://platforms/x/rules')).toMatchObject({ name: 'x-rules', title: 'X: posting rules', mimeType: 'application/json' });
    const { resourceTemplates } = await acme.listResourceTemplates();
    expect(resourceTemplates.map((r) => r.uriTemplate)).toEqual(['tidings://platforms/{identifier}/rules']);
  });

  it('reads a platform\'s rules: length and counting, threads, media limits, required settings and their schema, as the channel settings give them', async () => {
    const x = await readJson<Record<string, unknown>>(acme, 'tidings://platforms/x/rules');
    expect(x).toMatchObject({
      identifier: 'x',
      name: 'X',
      maxLength: 280,
      counting: 'twitter-weighted',
      editor: 'html',
      thread: { supported: true, kind: 'reply' },
      media: { maxItems: 4, image: { maxCount: 4, maxBytes: 5 * 1024 * 1024 }, video: { maxCount: 1, maxDurationSeconds: 140 } },
      requiredSettings: [{ field: 'who_can_reply_post', message: 'Required' }],
      settings: { type: 'object', properties: { who_can_reply_post: { enum: expect.arrayContaining(['everyone']) } } },
    });
    const bluesky = await readJson<Record<string, unknown>>(acme, 'tidings://platforms/bluesky/rules');
    expect(bluesky).toMatchObject({ identifier: 'bluesky', maxLength: 300, settings: 'No additional settings required', requiredSettings: [] });
    // the same description GET /integration-settings gives for a channel of the platform
    const settings = await t.app.inject({ method: 'GET', url: `/public/v1/integration-settings/${channelId}`, headers: { authorization: orgs.acme.apiKey } });
    const { output } = settings.json<{ output: Record<string, unknown> }>();
    const { identifier: _i, name: _n, requiredSettings: _r, ...described } = bluesky;
    const { defaults: _d, ...channelRules } = output;
    expect(described).toEqual(channelRules);
  });

  it('reads the caller\'s organisation\'s channels only', async () => {
    const mine = await readJson<{ channels: { id: string; name: string; identifier: string }[] }>(acme, 'tidings://channels');
    expect(mine.channels.map((c) => [c.id, c.name, c.identifier])).toEqual([[channelId, 'Acme on Bluesky', 'bluesky']]);
    expect(JSON.stringify(mine)).not.toContain('credentials');
    const theirs = await readJson<{ channels: unknown[] }>(beta, 'tidings://channels');
    expect(theirs.channels).toEqual([]);
  });

  it('answers an unknown platform or resource with InvalidParams naming it', async () => {
    const platform = await rpcError(acme.readResource({ uri: 'tidings://platforms/myspace/rules' }));
    expect(platform.code).toBe(ErrorCode.InvalidParams);
    expect(platform.message).toContain('Platform "myspace" not found');
    const other = await rpcError(acme.readResource({ uri: 'tidings://posts' }));
    expect(other.code).toBe(ErrorCode.InvalidParams);
    expect(other.message).toContain('Unknown resource tidings://posts');
  });
});

describe('MCP prompts', () => {
  it('lists plan_week and article_to_threads with their arguments', async () => {
    const { prompts } = await acme.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['plan_week', 'article_to_threads']);
    expect(prompts[0]!.arguments?.filter((a) => a.required).map((a) => a.name)).toEqual(['topic']);
    expect(prompts[1]!.arguments?.filter((a) => a.required).map((a) => a.name)).toEqual(['article']);
  });

  it('plan_week tells the assistant which tools to call, in order, ending with drafts', async () => {
    const r = await acme.getPrompt({ name: 'plan_week', arguments: { topic: 'our spring sale', startDate: '2027-03-01' } });
    expect(r.messages).toHaveLength(1);
    expect(r.messages[0]!.role).toBe('user');
    const text = (r.messages[0]!.content as { text: string }).text;
    expect(text).toContain('our spring sale');
    expect(text).toContain('from 2027-03-01 to 2027-03-07');
    const order = ['list_channels', 'get_channel_settings', 'find_free_slot', 'upload_media_from_url', 'create_posts'].map((tool) => text.indexOf(tool));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(text).toMatch(/create_posts and type "draft"/);
  });

  it('article_to_threads takes the channels argument by name, checked against the caller\'s channels', async () => {
    const r = await acme.getPrompt({ name: 'article_to_threads', arguments: { article: 'https://example.com/post', channels: 'acme on bluesky' } });
    const text = (r.messages[0]!.content as { text: string }).text;
    expect(text).toContain('https://example.com/post');
    expect(text).toContain(`channelId ${channelId}`);
    expect(text).not.toContain('Call list_channels');
    for (const tool of ['get_channel_settings', 'find_free_slot', 'upload_media_from_url', 'create_posts']) expect(text).toContain(tool);
    // Beta has no such channel
    const foreign = await rpcError(beta.getPrompt({ name: 'article_to_threads', arguments: { article: 'text', channels: channelId } }));
    expect(foreign.code).toBe(ErrorCode.InvalidParams);
    expect(foreign.message).toContain(`Argument "channels": no connected channel is "${channelId}"`);
  });

  it('refuses a missing required argument, a bad date and an unknown prompt, naming them', async () => {
    const missing = await rpcError(acme.getPrompt({ name: 'plan_week', arguments: { startDate: '2027-03-01' } }));
    expect(missing.code).toBe(ErrorCode.InvalidParams);
    expect(missing.message).toContain('needs the argument "topic"');
    const article = await rpcError(acme.getPrompt({ name: 'article_to_threads', arguments: { article: '  ' } }));
    expect(article.message).toContain('needs the argument "article"');
    const date = await rpcError(acme.getPrompt({ name: 'plan_week', arguments: { topic: 'x', startDate: 'next monday' } }));
    expect(date.message).toContain('Argument "startDate"');
    const unknown = await rpcError(acme.getPrompt({ name: 'plan_month', arguments: {} }));
    expect(unknown.message).toContain('Unknown prompt "plan_month"');
  });
});

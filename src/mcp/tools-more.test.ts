import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../core/webhooks/receiver.testkit.js';
import { createChannel, waitFor } from '../../test/factories.js';
import { useTestApp } from '../../test/helpers.js';
import { callError, callOk, connectStreamable } from '../../test/mcp/mcp-client.js';
import type { VideoCredits, VideoJob } from '../modules/video/video.schemas.js';

/**
 * The analytics, notification, customer, webhook and video tools through the SDK's own client over
 * Streamable HTTP, with the worker running: webhook deliveries reach a receiver on loopback and the
 * built-in slides provider encodes a real video. Every callOk also proves the answer fits the
 * tool's output schema (the client checks structuredContent against it).
 */

let receiver: Receiver;
let dataDir: string;
// registered before useTestApp's own afterAll, so it runs after the app is closed
afterAll(async () => {
  await receiver?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const { t, orgs } = useTestApp(async () => {
  receiver = await startReceiver();
  dataDir = await mkdtemp(join(tmpdir(), 'tidings-mcp-tools-'));
  return { startWorker: true, env: { DATA_DIR: dataDir, ALLOW_PRIVATE_TARGETS: 'true', PUBLIC_URL: 'http://127.0.0.1:1' } };
}, 'Acme', 'Beta');

let acme: Client;
let beta: Client;
const UNKNOWN = '00000000-0000-4000-8000-000000000000';

beforeAll(async () => {
  const origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
  acme = await connectStreamable(`${origin}/mcp`, `Bearer ${orgs.acme.apiKey}`);
  beta = await connectStreamable(`${origin}/mcp`, `Bearer ${orgs.beta.apiKey}`);
});
afterAll(async () => {
  await acme?.close();
  await beta?.close();
});

const paths = (e: { fields?: { path: string }[] }) => e.fields?.map((f) => f.path);

describe('tool list', () => {
  it('offers the tools with their annotations and renamed arguments', async () => {
    const { tools } = await acme.listTools();
    const tool = (name: string) => {
      const found = tools.find((x) => x.name === name);
      expect(found, name).toBeDefined();
      return found!;
    };
    expect(tool('get_channel_analytics').annotations).toMatchObject({ readOnlyHint: true, openWorldHint: true });
    expect(tool('get_channel_analytics').inputSchema).toMatchObject({ required: expect.arrayContaining(['channelId', 'days']) });
    expect(tool('delete_customer').annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(tool('rename_customer').inputSchema.required).toEqual(['customerId', 'name']);
    expect(tool('rotate_webhook_secret').annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(tool('test_webhook').annotations).toMatchObject({ readOnlyHint: false, openWorldHint: true });
    expect(tool('resend_webhook_delivery').inputSchema.required).toEqual(['webhookId', 'deliveryId']);
    expect(tool('list_notifications').annotations).toMatchObject({ readOnlyHint: true });
    expect(tool('generate_video').annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    expect(tool('get_video_job').inputSchema.required).toEqual(['jobId']);
  });
});

describe('analytics', () => {
  it("answers a channel's series, NOT_FOUND for an unknown or another organisation's channel, and names a bad days", async () => {
    const discord = await createChannel(t, orgs.acme, 'discord', { name: 'Server' });
    // Discord reports no figures: an empty list, without reaching the platform
    expect(await callOk(acme, 'get_channel_analytics', { channelId: discord.id, days: 7 })).toEqual({ series: [] });
    const unknown = await callError(acme, 'get_channel_analytics', { channelId: UNKNOWN, days: 7 });
    expect(unknown.code).toBe('NOT_FOUND');
    expect((await callError(beta, 'get_channel_analytics', { channelId: discord.id, days: 7 })).code).toBe('NOT_FOUND');
    const bad = await callError(acme, 'get_channel_analytics', { channelId: discord.id, days: 0 });
    expect(bad.code).toBe('VALIDATION_FAILED');
    expect(paths(bad)).toEqual(['days']);
    expect((await callError(acme, 'get_post_analytics', { postId: UNKNOWN, days: 30 })).code).toBe('NOT_FOUND');
  });

  it("answers [] for a post not published yet, and NOT_FOUND to another organisation", async () => {
    const discord = await createChannel(t, orgs.acme, 'discord', { name: 'Drafts' });
    const draft = await callOk<{ posts: { postId: string }[] }>(acme, 'create_posts', {
      type: 'draft',
      date: '2030-01-01T09:00:00Z',
      posts: [{ integration: { id: discord.id }, value: [{ content: 'not yet' }] }],
    });
    const postId = draft.posts[0]!.postId;
    expect(await callOk(acme, 'get_post_analytics', { postId, days: 30 })).toEqual({ analytics: [] });
    expect((await callError(beta, 'get_post_analytics', { postId, days: 30 })).code).toBe('NOT_FOUND');
  });
});

describe('notifications', () => {
  it("lists the organisation's notifications, newest first, only its own", async () => {
    await t.deps.services.notifications.notify(orgs.acme.id, 'First message', 'https://example.com/a');
    await t.deps.services.notifications.notify(orgs.acme.id, 'Second message');
    await t.deps.services.notifications.notify(orgs.beta.id, 'For Beta only');
    const page = await callOk<{ notifications: { content: string; link: string | null; createdAt: string }[]; total: number; page: number; hasMore: boolean }>(acme, 'list_notifications');
    expect(page).toMatchObject({ total: 2, page: 0, hasMore: false });
    expect(page.notifications.map((n) => n.content).sort()).toEqual(['First message', 'Second message']);
    expect(page.notifications.find((n) => n.content === 'First message')?.link).toBe('https://example.com/a');
    expect(Number.isNaN(Date.parse(page.notifications[0]!.createdAt))).toBe(false);
    expect((await callOk<{ notifications: unknown[] }>(acme, 'list_notifications', { page: 1 })).notifications).toEqual([]);
    const bad = await callError(acme, 'list_notifications', { page: -1 });
    expect(bad.code).toBe('VALIDATION_FAILED');
    expect(paths(bad)).toEqual(['page']);
  });
});

describe('customers', () => {
  it('creates, renames, lists and deletes a client group; another organisation cannot touch it', async () => {
    const created = await callOk<{ id: string; name: string }>(acme, 'create_customer', { name: '  Bakery  ' });
    expect(created.name).toBe('Bakery');
    const renamed = await callOk<{ id: string; name: string }>(acme, 'rename_customer', { customerId: created.id, name: 'Corner Bakery' });
    expect(renamed).toEqual({ id: created.id, name: 'Corner Bakery' });
    expect(await callOk(acme, 'list_customers')).toEqual({ customers: [{ id: created.id, name: 'Corner Bakery' }] });
    expect(await callOk(beta, 'list_customers')).toEqual({ customers: [] });

    expect((await callError(beta, 'rename_customer', { customerId: created.id, name: 'Mine now' })).code).toBe('NOT_FOUND');
    expect((await callError(beta, 'delete_customer', { customerId: created.id })).code).toBe('NOT_FOUND');
    const bad = await callError(acme, 'rename_customer', { customerId: created.id, name: '   ' });
    expect(bad.code).toBe('VALIDATION_FAILED');
    expect(paths(bad)).toEqual(['name']);

    expect(await callOk(acme, 'delete_customer', { customerId: created.id })).toEqual({ id: created.id, name: 'Corner Bakery' });
    expect(await callOk(acme, 'list_customers')).toEqual({ customers: [] });
    expect((await callError(acme, 'delete_customer', { customerId: created.id })).code).toBe('NOT_FOUND');
  });
});

interface Hook {
  id: string;
  name: string;
  url: string;
  events: string[];
  enabled: boolean;
  secret?: string;
}
interface LogPage {
  deliveries: { deliveryId: string; eventType: string; attempt: number; statusCode: number | null; state: string }[];
  total: number;
}

describe('webhooks', () => {
  it('creates (secret once), lists, updates, tests, logs, resends, rotates and deletes a webhook', async () => {
    const created = await callOk<Hook & { secret: string }>(acme, 'create_webhook', { name: 'Receiver', url: receiver.url, events: ['post.published'] });
    expect(created).toMatchObject({ name: 'Receiver', url: receiver.url, events: ['post.published'], enabled: true });
    expect(created.secret).toMatch(/^whsec_/);
    const listed = await callOk<{ webhooks: Hook[] }>(acme, 'list_webhooks');
    expect(listed.webhooks.map((w) => w.id)).toEqual([created.id]);
    expect(listed.webhooks[0]).not.toHaveProperty('secret');
    expect(await callOk<Hook>(acme, 'get_webhook', { webhookId: created.id })).not.toHaveProperty('secret');

    const updated = await callOk<Hook>(acme, 'update_webhook', { webhookId: created.id, name: 'Renamed', events: [] });
    expect(updated).toMatchObject({ id: created.id, name: 'Renamed', url: receiver.url, events: [] });

    // the test event is queued at once and reaches the receiver, signed with the secret
    const sent = await callOk<{ deliveryId: string; eventId: string }>(acme, 'test_webhook', { webhookId: created.id });
    const arrived = await waitFor(async () => receiver.requests.find((r) => r.headers['webhook-id'] === sent.deliveryId), 15_000, 'the test delivery');
    expect(arrived.json).toMatchObject({ type: 'webhook.test' });
    expect(() => new Webhook(created.secret).verify(arrived.body, arrived.headers as Record<string, string>)).not.toThrow();
    const log = await waitFor(
      async () => ((p) => (p.deliveries.some((d) => d.deliveryId === sent.deliveryId && d.state === 'delivered') ? p : undefined))(await callOk<LogPage>(acme, 'list_webhook_deliveries', { webhookId: created.id })),
      15_000,
      'the delivery logged as delivered',
    );
    expect(log.deliveries.find((d) => d.deliveryId === sent.deliveryId)).toMatchObject({ eventType: 'webhook.test', attempt: 1, statusCode: 200, state: 'delivered' });

    // sent again with the same webhook-id
    expect(await callOk(acme, 'resend_webhook_delivery', { webhookId: created.id, deliveryId: sent.deliveryId })).toEqual({ deliveryId: sent.deliveryId, state: 'pending' });
    await waitFor(async () => receiver.requests.filter((r) => r.headers['webhook-id'] === sent.deliveryId).length === 2, 15_000, 'the resent delivery');

    const rotated = await callOk<{ secret: string; previousValidUntil: string }>(acme, 'rotate_webhook_secret', { webhookId: created.id });
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(created.secret);
    expect(Date.parse(rotated.previousValidUntil)).toBeGreaterThan(Date.now());

    // another organisation sees none of it
    expect(await callOk(beta, 'list_webhooks')).toEqual({ webhooks: [] });
    for (const [name, args] of [
      ['get_webhook', { webhookId: created.id }],
      ['update_webhook', { webhookId: created.id, name: 'Taken' }],
      ['test_webhook', { webhookId: created.id }],
      ['list_webhook_deliveries', { webhookId: created.id }],
      ['resend_webhook_delivery', { webhookId: created.id, deliveryId: sent.deliveryId }],
      ['rotate_webhook_secret', { webhookId: created.id }],
      ['delete_webhook', { webhookId: created.id }],
    ] as const) {
      expect((await callError(beta, name, args)).code, name).toBe('NOT_FOUND');
    }

    expect(await callOk(acme, 'delete_webhook', { webhookId: created.id })).toEqual({ id: created.id, deleted: true });
    expect((await callError(acme, 'get_webhook', { webhookId: created.id })).code).toBe('NOT_FOUND');
    expect(await callOk(acme, 'list_webhooks')).toEqual({ webhooks: [] });
  });

  it('names the bad argument', async () => {
    const badEvent = await callError(acme, 'create_webhook', { name: 'Hook', url: receiver.url, events: ['post.exploded'] });
    expect(badEvent.code).toBe('VALIDATION_FAILED');
    expect(paths(badEvent)).toEqual(['events.0']);
    const badUrl = await callError(acme, 'create_webhook', { name: 'Hook', url: 'ftp://example.com/in' });
    expect(badUrl.code).toBe('VALIDATION_FAILED');
    expect(paths(badUrl)).toEqual(['url']);
    expect(await callOk(acme, 'list_webhooks')).toEqual({ webhooks: [] });
  });
});

describe('video', () => {
  it('lists the providers and calls a function of one', async () => {
    const { providers } = await callOk<{ providers: { identifier: string; creditCost: number; functions: { name: string }[] }[] }>(acme, 'list_video_providers');
    const slides = providers.find((p) => p.identifier === 'slides');
    expect(slides?.functions.map((f) => f.name).sort()).toEqual(['listFonts', 'listTemplates', 'preview']);
    const templates = await callOk<{ result: { templates: { id: string }[] } }>(acme, 'call_video_function', { identifier: 'slides', functionName: 'listTemplates' });
    expect(templates.result.templates.length).toBeGreaterThan(0);
    const unknown = await callError(acme, 'call_video_function', { identifier: 'slides', functionName: 'explode' });
    expect(paths(unknown)).toEqual(['functionName']);
  });

  it('generates a video without waiting for it, then get_video_job follows it to the media item; credits move', { timeout: 150_000 }, async () => {
    const before = await callOk<VideoCredits>(acme, 'get_video_credits');
    expect(before.period).toMatch(/^\d{4}-\d{2}$/);
    const bad = await callError(acme, 'generate_video', { type: 'slides', output: 'square', customParams: {} });
    expect(bad.code).toBe('VALIDATION_FAILED');
    expect(paths(bad)).toEqual(['output']);

    const started = Date.now();
    const job = await callOk<VideoJob>(acme, 'generate_video', {
      type: 'slides',
      output: 'horizontal',
      customParams: { slides: [{ text: 'Hello from an assistant', duration: 1 }] },
    });
    // answered with the job at once, not after the encode
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(job).toMatchObject({ type: 'slides', output: 'horizontal', status: 'queued', creditState: 'reserved', media: null });

    expect((await callError(beta, 'get_video_job', { jobId: job.id })).code).toBe('NOT_FOUND');
    expect(await callOk(beta, 'list_video_jobs')).toMatchObject({ jobs: [], total: 0 });

    const done = await waitFor(
      async () => ((j) => (j.status === 'succeeded' || j.status === 'failed' ? j : undefined))(await callOk<VideoJob>(acme, 'get_video_job', { jobId: job.id })),
      120_000,
      'the video job',
    );
    expect(done, done.error ?? '').toMatchObject({ status: 'succeeded', progress: 1, creditState: 'spent' });
    expect(done.media).toMatchObject({ type: 'video' });
    const listed = await callOk<{ jobs: VideoJob[]; total: number }>(acme, 'list_video_jobs');
    expect(listed.jobs.map((j) => j.id)).toEqual([job.id]);

    const after = await callOk<VideoCredits>(acme, 'get_video_credits');
    expect(after.used).toBe(before.used + done.credits);
    expect(after.reserved).toBe(before.reserved);
  });
});

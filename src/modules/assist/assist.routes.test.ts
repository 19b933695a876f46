import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aiSettings } from '../../db/schema/index.js';
import { call, expectError, useTestApp, type TestApp, type TestOrg } from '../../../test/helpers.js';
import { createChannel } from '../../../test/factories.js';
import { uploadMedia } from '../../../test/media.js';
import { signUp } from '../../../test/browser.js';
import { startOpenAiSimulator, textOf, type ChatMessageIn, type OpenAiSimulator } from '../../../test/simulators/openai.simulator.js';

const KEY = 'sk-test-0123456789';
const API = '/public/v1';

let sim: OpenAiSimulator;
const dataDir = mkdtempSync(join(tmpdir(), 'tidings-assist-'));
beforeAll(async () => {
  sim = await startOpenAiSimulator({ apiKey: KEY });
});
afterAll(async () => {
  await sim.close();
  rmSync(dataDir, { recursive: true, force: true });
});

interface Suggestion {
  integrationId: string | null;
  platform: string | null;
  content: string;
  items?: string[];
  length: number | null;
  maxLength: number | null;
  fits: boolean;
  note?: string;
}

/** The events of a Server-Sent Events body, in order. */
function parseSse(body: string): { event: string; data: unknown }[] {
  return body
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const lines = block.split('\n');
      const event = lines.find((l) => l.startsWith('event: '))!.slice('event: '.length);
      const data = lines.filter((l) => l.startsWith('data: ')).map((l) => l.slice('data: '.length)).join('\n');
      return { event, data: JSON.parse(data) as unknown };
    });
}

/** A loopback port nothing listens on (one that was free a moment ago). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const lastUser = (messages: ChatMessageIn[]) => textOf(messages.filter((m) => m.role === 'user').at(-1)!);
const system = (messages: ChatMessageIn[]) => textOf(messages.find((m) => m.role === 'system')!);

async function configure(t: TestApp, org: TestOrg, body: Record<string, unknown> = {}) {
  const res = await call(t.app, org.apiKey, { method: 'PUT', url: `${API}/ai/settings`, payload: { baseUrl: sim.baseUrl, model: 'gpt-4o-mini', apiKey: KEY, ...body } });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<Record<string, unknown>>();
}

const post = (t: TestApp, org: TestOrg, action: string, payload: Record<string, unknown>, headers: Record<string, string> = {}) =>
  call(t.app, org.apiKey, { method: 'POST', url: `${API}/ai/${action}`, payload, headers });

describe('writing help', () => {
  const { t, orgs } = useTestApp(
    () => ({ env: { ALLOW_PRIVATE_TARGETS: 'true', AI_TIMEOUT_SECONDS: '1', AI_RATE_LIMIT: '1000', DATA_DIR: dataDir } }),
    'Acme',
    'Off',
  );
  let x: { id: string };
  let linkedin: { id: string };
  let devto: { id: string };

  beforeAll(async () => {
    x = await createChannel(t, orgs.acme, 'x');
    linkedin = await createChannel(t, orgs.acme, 'linkedin');
    devto = await createChannel(t, orgs.acme, 'devto');
  });

  describe('not configured', () => {
    it('answers the settings as off', async () => {
      const res = await call(t.app, orgs.off.apiKey, { method: 'GET', url: `${API}/ai/settings` });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ configured: false, baseUrl: null, model: null, vision: false, hasApiKey: false });
    });

    it('answers every action 404 naming the setting, and sends nothing anywhere', async () => {
      const before = sim.log.length;
      const bodies: Record<string, Record<string, unknown>> = {
        draft: { brief: 'launch' },
        rewrite: { content: 'hello', integrationIds: ['00000000-0000-4000-8000-000000000000'] },
        thread: { content: 'hello', integrationId: '00000000-0000-4000-8000-000000000000' },
        hashtags: { content: 'hello' },
        'alt-text': { mediaId: '00000000-0000-4000-8000-000000000000' },
        translate: { content: 'hello', language: 'German' },
      };
      for (const [action, body] of Object.entries(bodies)) {
        for (const headers of [{}, { accept: 'text/event-stream' }] as Record<string, string>[]) {
          const err = expectError(await post(t, orgs.off, action, body, headers), 404, 'AI_NOT_CONFIGURED');
          expect(err.message).toBe('Writing help is off: set a model with PUT /ai/settings (Settings → Writing help)');
        }
      }
      expect(sim.log.length).toBe(before);
    });
  });

  describe('settings', () => {
    it('refuses a key the endpoint refuses, naming apiKey, and stores nothing', async () => {
      const err = expectError(
        await call(t.app, orgs.off.apiKey, { method: 'PUT', url: `${API}/ai/settings`, payload: { baseUrl: sim.baseUrl, model: 'gpt-4o-mini', apiKey: 'sk-wrong' } }),
        400,
        'VALIDATION_FAILED',
      );
      expect(err.fields).toEqual([{ path: 'apiKey', message: expect.stringContaining('refused the key') }]);
      expect((await call(t.app, orgs.off.apiKey, { method: 'GET', url: `${API}/ai/settings` })).json()).toMatchObject({ configured: false });
    });

    it('refuses a model the endpoint does not list, a wrong base URL and an unreachable one, naming the field', async () => {
      const model = expectError(
        await call(t.app, orgs.off.apiKey, { method: 'PUT', url: `${API}/ai/settings`, payload: { baseUrl: sim.baseUrl, model: 'gpt-9', apiKey: KEY } }),
        400,
        'VALIDATION_FAILED',
      );
      expect(model.fields).toEqual([{ path: 'model', message: expect.stringContaining('does not offer "gpt-9"; it lists gpt-4o-mini, llama3.1:8b') }]);
      const path = expectError(
        await call(t.app, orgs.off.apiKey, { method: 'PUT', url: `${API}/ai/settings`, payload: { baseUrl: sim.origin, model: 'gpt-4o-mini', apiKey: KEY } }),
        400,
        'VALIDATION_FAILED',
      );
      expect(path.fields).toEqual([{ path: 'baseUrl', message: expect.stringContaining('answered 404: is the base URL the API') }]);
      const port = await closedPort();
      const down = expectError(
        await call(t.app, orgs.off.apiKey, { method: 'PUT', url: `${API}/ai/settings`, payload: { baseUrl: `http://127.0.0.1:${port}/v1`, model: 'gpt-4o-mini', apiKey: KEY } }),
        400,
        'VALIDATION_FAILED',
      );
      expect(down.fields).toEqual([{ path: 'baseUrl', message: `127.0.0.1:${port} refused the connection` }]);
    });

    it('names the field of a malformed body', async () => {
      for (const [payload, field] of [
        [{ baseUrl: 'ftp://example.com/v1', model: 'm' }, 'baseUrl'],
        [{ baseUrl: 'not a url', model: 'm' }, 'baseUrl'],
        [{ baseUrl: `https://example.com/${'a'.repeat(2001)}`, model: 'm' }, 'baseUrl'],
        [{ baseUrl: 'https://user:pw@example.com/v1', model: 'm' }, 'baseUrl'],
        [{ baseUrl: 'https://example.com/v1', model: '' }, 'model'],
        [{ baseUrl: 'https://example.com/v1', model: 'm', apiKey: '' }, 'apiKey'],
        [{ baseUrl: 'https://example.com/v1', model: 'm', vision: 'yes' }, 'vision'],
      ] as const) {
        const err = expectError(await call(t.app, orgs.off.apiKey, { method: 'PUT', url: `${API}/ai/settings`, payload }), 400, 'VALIDATION_FAILED');
        expect(err.fields?.map((f) => f.path)).toEqual([field]);
      }
    });

    it('stores the key sealed and never answers it', async () => {
      const body = await configure(t, orgs.acme);
      expect(body).toEqual({ configured: true, baseUrl: sim.baseUrl, model: 'gpt-4o-mini', vision: false, hasApiKey: true });
      const [row] = await t.deps.database.db.select().from(aiSettings).where(eq(aiSettings.organizationId, orgs.acme.id));
      expect(row!.apiKeySealed).not.toBeNull();
      expect(row!.apiKeySealed).not.toContain(KEY);
      expect(t.deps.secretBox.open(row!.apiKeySealed!)).toBe(KEY);
      const got = await call(t.app, orgs.acme.apiKey, { method: 'GET', url: `${API}/ai/settings` });
      expect(got.body).not.toContain(KEY);
      expect(got.json()).toEqual(body);
      // the check sent the key to the endpoint as a Bearer token
      expect(sim.log.filter((r) => r.path === '/v1/models').at(-1)!.headers.authorization).toBe(`Bearer ${KEY}`);
      // recorded in the activity log, without the key
      const activity = await call(t.app, orgs.acme.apiKey, { method: 'GET', url: `${API}/activity` });
      expect(activity.body).toContain('ai_settings.created');
      expect(activity.body).not.toContain(KEY);
    });

    it('keeps the stored key when apiKey is omitted, but not for a new address', async () => {
      const kept = await configure(t, orgs.acme, { apiKey: undefined, vision: true });
      expect(kept).toMatchObject({ hasApiKey: true, vision: true });
      const moved = expectError(
        await call(t.app, orgs.acme.apiKey, { method: 'PUT', url: `${API}/ai/settings`, payload: { baseUrl: sim.baseUrl.replace('127.0.0.1', 'localhost'), model: 'gpt-4o-mini' } }),
        400,
        'VALIDATION_FAILED',
      );
      expect(moved.fields?.[0]?.path).toBe('apiKey');
    });
  });

  describe('actions', () => {
    it('drafts one generic suggestion without channels, and one per channel in its limits', async () => {
      sim.setReply(() => 'Our spring sale starts Monday.');
      const generic = await post(t, orgs.acme, 'draft', { brief: 'spring sale', tone: 'friendly', language: 'English' });
      expect(generic.statusCode, generic.body).toBe(200);
      expect(generic.json()).toEqual({
        suggestions: [{ integrationId: null, platform: null, content: 'Our spring sale starts Monday.', length: 30, maxLength: null, fits: true }],
      });
      const n = sim.completions().length;
      const per = await post(t, orgs.acme, 'draft', { brief: 'spring sale', integrationIds: [x.id, linkedin.id] });
      expect(per.json<{ suggestions: Suggestion[] }>().suggestions).toEqual([
        { integrationId: x.id, platform: 'x', content: 'Our spring sale starts Monday.', length: 30, maxLength: 280, fits: true },
        { integrationId: linkedin.id, platform: 'linkedin', content: 'Our spring sale starts Monday.', length: 30, maxLength: 3000, fits: true },
      ]);
      const asked = sim.completions().slice(n);
      expect(asked).toHaveLength(2);
      const prompts = asked.map((c) => system(c.messages)).sort();
      expect(prompts.find((p) => p.includes('Platform: X.'))).toContain('at most 280 weighted characters');
      expect(prompts.find((p) => p.includes('Platform: LinkedIn'))).toContain('professional');
      expect(asked.every((c) => c.model === 'gpt-4o-mini' && !c.stream)).toBe(true);
    });

    it("asks once more when a rewrite is over X's 280, and uses the second answer when it fits", async () => {
      let calls = 0;
      sim.setReply(() => (++calls === 1 ? 'word '.repeat(80).trim() : 'Short and sweet.'));
      const n = sim.completions().length;
      const res = await post(t, orgs.acme, 'rewrite', { content: '<p>A long <b>announcement</b></p>', integrationIds: [x.id] });
      expect(res.statusCode, res.body).toBe(200);
      const [s] = res.json<{ suggestions: Suggestion[] }>().suggestions;
      expect(s).toMatchObject({ integrationId: x.id, platform: 'x', content: 'Short and sweet.', length: 16, maxLength: 280, fits: true });
      const asked = sim.completions().slice(n);
      expect(asked).toHaveLength(2);
      // the HTML was sent as text; the retry told the count and the limit
      expect(lastUser(asked[0]!.messages)).toContain('A long announcement');
      expect(lastUser(asked[1]!.messages)).toContain('That text is 399 weighted characters (URLs count 23, emoji and CJK 2); the limit is 280');
    });

    it('answers fits: false with a note when the shortened answer is still over, never more than two requests', async () => {
      sim.setReply(() => 'word '.repeat(80).trim());
      const n = sim.completions().length;
      const res = await post(t, orgs.acme, 'rewrite', { content: 'Anything', integrationIds: [x.id, linkedin.id] });
      const [onX, onLinkedIn] = res.json<{ suggestions: Suggestion[] }>().suggestions;
      expect(onX).toMatchObject({ platform: 'x', length: 399, maxLength: 280, fits: false, note: expect.stringContaining('over the limit of 280') });
      expect(onLinkedIn).toMatchObject({ platform: 'linkedin', length: 399, fits: true });
      expect(sim.completions().length - n).toBe(3);
    });

    it('splits a thread into parts within the limit, and refuses a platform without threads', async () => {
      sim.setReply(() => 'First part.\n---\nSecond part.\n\n---\nThird part.');
      const res = await post(t, orgs.acme, 'thread', { content: 'A long text', integrationId: x.id });
      expect(res.json()).toEqual({
        suggestions: [
          { integrationId: x.id, platform: 'x', content: 'First part.\n\nSecond part.\n\nThird part.', items: ['First part.', 'Second part.', 'Third part.'], length: 12, maxLength: 280, fits: true },
        ],
      });
      const err = expectError(await post(t, orgs.acme, 'thread', { content: 'A long text', integrationId: devto.id }), 400, 'VALIDATION_FAILED');
      expect(err.fields).toEqual([{ path: 'integrationId', message: expect.stringContaining('does not publish threads') }]);
    });

    it('suggests hashtags as #words, at most count', async () => {
      sim.setReply(() => '#Spring #sale spring discount #Sale #deals');
      const res = await post(t, orgs.acme, 'hashtags', { content: 'Spring sale', integrationId: x.id, count: 3 });
      expect(res.json()).toEqual({ suggestions: [{ integrationId: x.id, platform: 'x', content: '#Spring #sale #deals', items: ['#Spring', '#sale', '#deals'], length: 20, maxLength: 280, fits: true }] });
    });

    it('translates, per channel', async () => {
      sim.setReply((messages) => (lastUser(messages).includes('into German') ? 'Hallo Welt' : 'wrong'));
      const res = await post(t, orgs.acme, 'translate', { content: 'Hello world', language: 'German', integrationIds: [linkedin.id] });
      expect(res.json()).toEqual({ suggestions: [{ integrationId: linkedin.id, platform: 'linkedin', content: 'Hallo Welt', length: 10, maxLength: 3000, fits: true }] });
    });

    it('writes alt text from the image itself (a data: URL) when the model takes images', async () => {
      const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#ff0000' } }).png().toBuffer();
      const media = await uploadMedia(t, orgs.acme, png, 'red.png', { type: 'image/png' });
      sim.setReply(() => 'A plain red square.');
      const n = sim.completions().length;
      const res = await post(t, orgs.acme, 'alt-text', { mediaId: media.id, language: 'English' });
      expect(res.json()).toEqual({ suggestions: [{ integrationId: null, platform: null, content: 'A plain red square.', length: 19, maxLength: 1000, fits: true }] });
      const parts = sim.completions()[n]!.messages.at(-1)!.content as { type: string; image_url?: { url: string } }[];
      expect(parts.find((p) => p.type === 'image_url')!.image_url!.url).toBe(`data:image/png;base64,${png.toString('base64')}`);

      await configure(t, orgs.acme, { vision: false });
      const off = expectError(await post(t, orgs.acme, 'alt-text', { mediaId: media.id }), 400, 'VALIDATION_FAILED');
      expect(off.fields).toEqual([{ path: 'mediaId', message: expect.stringContaining('does not take images: turn on `vision`') }]);
      await configure(t, orgs.acme, { vision: true });
      const unknown = expectError(await post(t, orgs.acme, 'alt-text', { mediaId: '00000000-0000-4000-8000-000000000000' }), 400, 'VALIDATION_FAILED');
      expect(unknown.fields?.[0]?.path).toBe('mediaId');
    });

    it('names the field of a bad action body, an unknown channel included', async () => {
      const cases: [string, Record<string, unknown>, string][] = [
        ['draft', { brief: '' }, 'brief'],
        ['rewrite', { content: 'x' }, 'integrationIds'],
        ['rewrite', { content: 'x', integrationIds: [] }, 'integrationIds'],
        ['rewrite', { content: 'x', integrationIds: ['nope'] }, 'integrationIds.0'],
        ['rewrite', { content: 'x', integrationIds: ['00000000-0000-4000-8000-000000000000'] }, 'integrationIds.0'],
        ['thread', { content: 'x' }, 'integrationId'],
        ['hashtags', { content: 'x', count: 31 }, 'count'],
        ['translate', { content: 'x' }, 'language'],
        ['alt-text', {}, 'mediaId'],
      ];
      for (const [action, body, field] of cases) {
        const err = expectError(await post(t, orgs.acme, action, body), 400, 'VALIDATION_FAILED');
        expect(err.fields?.[0]?.path, `${action} ${JSON.stringify(body)}`).toBe(field);
      }
    });
  });

  describe('streaming', () => {
    it('streams deltas per suggestion, then done with the checked suggestions', async () => {
      sim.setReply((messages) => (system(messages).includes('Platform: X.') ? 'Short for X, streamed in pieces.' : 'A longer LinkedIn version, streamed in several pieces.'));
      const n = sim.completions().length;
      const res = await post(t, orgs.acme, 'rewrite', { content: 'Hello', integrationIds: [x.id, linkedin.id] }, { accept: 'text/event-stream' });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toContain('text/event-stream');
      const events = parseSse(res.body);
      const deltas = events.filter((e) => e.event === 'delta').map((e) => e.data as { index: number; text: string });
      expect(deltas.length).toBeGreaterThan(4);
      const joined = [0, 1].map((i) => deltas.filter((d) => d.index === i).map((d) => d.text).join(''));
      expect(joined).toEqual(['Short for X, streamed in pieces.', 'A longer LinkedIn version, streamed in several pieces.']);
      expect(events.at(-1)).toEqual({
        event: 'done',
        data: {
          suggestions: [
            { integrationId: x.id, platform: 'x', content: joined[0], length: 32, maxLength: 280, fits: true },
            { integrationId: linkedin.id, platform: 'linkedin', content: joined[1], length: 54, maxLength: 3000, fits: true },
          ],
        },
      });
      expect(sim.completions().slice(n).every((c) => c.stream)).toBe(true);
    });

    it('streams every action', async () => {
      sim.setReply(() => '#one #two');
      for (const [action, body] of [
        ['draft', { brief: 'b' }],
        ['thread', { content: 'c', integrationId: x.id }],
        ['hashtags', { content: 'c' }],
        ['translate', { content: 'c', language: 'French' }],
      ] as const) {
        const events = parseSse((await post(t, orgs.acme, action, body, { accept: 'text/event-stream' })).body);
        expect(events.at(-1)!.event, action).toBe('done');
        expect((events.at(-1)!.data as { suggestions: Suggestion[] }).suggestions[0]!.content, action).toContain('#one');
      }
    });

    it('answers a model failure before the first word as a JSON error', async () => {
      sim.inject({ path: /chat\/completions/, status: 500, body: { error: { message: 'The server had an error', type: 'server_error', param: null, code: null } } });
      const res = await post(t, orgs.acme, 'draft', { brief: 'b' }, { accept: 'text/event-stream' });
      const err = expectError(res, 502, 'AI_UNAVAILABLE');
      expect(err.message).toContain('answered 500: The server had an error');
    });

    it('ends with an error event when the model stops answering after the stream started', async () => {
      sim.setReply(() => 'x'.repeat(200));
      sim.setChunkDelay(100);
      try {
        const started = Date.now();
        const res = await post(t, orgs.acme, 'draft', { brief: 'b' }, { accept: 'text/event-stream' });
        expect(Date.now() - started).toBeLessThan(3000);
        const events = parseSse(res.body);
        expect(events.some((e) => e.event === 'delta')).toBe(true);
        expect(events.at(-1)).toEqual({ event: 'error', data: { code: 'AI_TIMEOUT', message: expect.stringContaining('no answer within 1 s (AI_TIMEOUT_SECONDS)') } });
      } finally {
        sim.setChunkDelay(0);
      }
    });
  });

  it('closes the model request when the client goes away mid-stream', async () => {
    sim.setReply(() => 'y'.repeat(400));
    sim.setChunkDelay(20);
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const controller = new AbortController();
      const before = sim.closedEarly();
      const res = await fetch(`${address}${API}/ai/draft`, {
        method: 'POST',
        headers: { authorization: orgs.acme.apiKey, 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ brief: 'b' }),
        signal: controller.signal,
      });
      expect(res.headers.get('content-type')).toContain('text/event-stream');
      const reader = res.body!.getReader();
      const first = new TextDecoder().decode((await reader.read()).value as Uint8Array);
      expect(first).toContain('event: delta');
      controller.abort();
      await expect.poll(() => sim.closedEarly(), { timeout: 3000 }).toBe(before + 1);
    } finally {
      sim.setChunkDelay(0);
    }
  });

  describe('a slow or failing endpoint', () => {
    it('answers 504 within about the timeout', async () => {
      sim.setLatency(2500);
      try {
        const started = Date.now();
        const err = expectError(await post(t, orgs.acme, 'draft', { brief: 'b' }), 504, 'AI_TIMEOUT');
        expect(Date.now() - started).toBeLessThan(2000);
        expect(err.message).toContain('no answer within 1 s (AI_TIMEOUT_SECONDS)');
      } finally {
        sim.setLatency(0);
      }
    });

    it('answers 502 when the endpoint fails, or refuses the key', async () => {
      sim.inject({ path: /chat\/completions/, status: 500, body: 'upstream exploded' });
      expect(expectError(await post(t, orgs.acme, 'draft', { brief: 'b' }), 502, 'AI_UNAVAILABLE').message).toContain('answered 500: upstream exploded');
      sim.inject({ path: /chat\/completions/, status: 401, body: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } } });
      expect(expectError(await post(t, orgs.acme, 'draft', { brief: 'b' }), 502, 'AI_UNAVAILABLE').message).toContain('endpoint refused the key (401: Incorrect API key provided)');
      sim.inject({ path: /chat\/completions/, status: 200, body: 'not json' });
      expect(expectError(await post(t, orgs.acme, 'draft', { brief: 'b' }), 502, 'AI_UNAVAILABLE').message).toContain('not a chat completion');
    });

    it("passes the endpoint's own 429 on with its Retry-After", async () => {
      sim.inject({ path: /chat\/completions/, status: 429, headers: { 'retry-after': '7' }, body: { error: { message: 'Rate limit reached', type: 'requests', param: null, code: 'rate_limit_exceeded' } } });
      const res = await post(t, orgs.acme, 'draft', { brief: 'b' });
      expectError(res, 429, 'AI_RATE_LIMITED');
      expect(res.headers['retry-after']).toBe('7');
    });
  });

  describe('turning it off', () => {
    it('forgets the endpoint: 204, then the actions answer 404 again', async () => {
      const res = await call(t.app, orgs.acme.apiKey, { method: 'DELETE', url: `${API}/ai/settings` });
      expect(res.statusCode).toBe(204);
      expect((await call(t.app, orgs.acme.apiKey, { method: 'GET', url: `${API}/ai/settings` })).json()).toMatchObject({ configured: false, hasApiKey: false });
      const before = sim.log.length;
      expectError(await post(t, orgs.acme, 'draft', { brief: 'b' }), 404, 'AI_NOT_CONFIGURED');
      expect(sim.log.length).toBe(before);
    });
  });
});

describe('writing help: the per-organisation rate limit', () => {
  const { t, orgs } = useTestApp(() => ({ env: { ALLOW_PRIVATE_TARGETS: 'true', AI_RATE_LIMIT: '2' } }), 'Acme', 'Other');

  it('answers 429 with Retry-After past AI_RATE_LIMIT model calls a minute, per organisation', async () => {
    sim.setReply(() => 'ok');
    await configure(t, orgs.acme);
    await configure(t, orgs.other);
    expect((await post(t, orgs.acme, 'draft', { brief: 'b' })).statusCode).toBe(200);
    expect((await post(t, orgs.acme, 'hashtags', { content: 'b' })).statusCode).toBe(200);
    const before = sim.completions().length;
    const res = await post(t, orgs.acme, 'draft', { brief: 'b' }, { accept: 'text/event-stream' });
    expect(expectError(res, 429, 'AI_RATE_LIMITED').message).toContain('AI_RATE_LIMIT');
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(sim.completions().length).toBe(before);
    expect((await post(t, orgs.other, 'draft', { brief: 'b' })).statusCode).toBe(200);
    // each suggestion is a call: an action needing more than the limit says so, and records nothing
    const ids = await Promise.all(['x', 'bluesky', 'threads'].map(async (p) => (await createChannel(t, orgs.other, p as 'x')).id));
    const many = await post(t, orgs.other, 'rewrite', { content: 'c', integrationIds: ids });
    expect(expectError(many, 429, 'AI_RATE_LIMITED').message).toContain('asks the model 3 times');
    expect((await post(t, orgs.other, 'hashtags', { content: 'b' })).statusCode).toBe(200);
  });
});

describe('writing help: private addresses', () => {
  const { t, orgs } = useTestApp({}, 'Acme');

  it('refuses a model on a private address unless ALLOW_PRIVATE_TARGETS=true, naming baseUrl', async () => {
    const before = sim.log.length;
    const err = expectError(
      await call(t.app, orgs.acme.apiKey, { method: 'PUT', url: `${API}/ai/settings`, payload: { baseUrl: sim.baseUrl, model: 'gpt-4o-mini', apiKey: KEY } }),
      400,
      'VALIDATION_FAILED',
    );
    expect(err.fields).toEqual([{ path: 'baseUrl', message: expect.stringContaining('ALLOW_PRIVATE_TARGETS=true') }]);
    expect(sim.log.length).toBe(before);
  });
});

describe('writing help: who may do what', () => {
  const { t } = useTestApp({ env: { ALLOW_PRIVATE_TARGETS: 'true', SIGNUP: 'open' } });

  it('owners set the model; members and contributors ask for suggestions but cannot change the settings', async () => {
    const owner = await signUp(t.app, { email: 'olga@example.test', name: 'Olga', organization: 'Acme' });
    const invite = async (email: string, role: string) => {
      const { link } = (await owner.api('POST', '/public/v1/invitations', { email, role })).json<{ link: string }>();
      return signUp(t.app, { email, name: role, invite: link.split('/').at(-1)! });
    };
    const member = await invite('mia@example.test', 'member');
    const contributor = await invite('carl@example.test', 'contributor');
    sim.setReply(() => 'ok');
    const settings = { baseUrl: sim.baseUrl, model: 'gpt-4o-mini', apiKey: KEY };
    expect((await owner.api('PUT', `${API}/ai/settings`, settings)).statusCode).toBe(200);
    for (const who of [member, contributor]) {
      expect(expectError(await who.api('PUT', `${API}/ai/settings`, settings), 403, 'FORBIDDEN').message).toMatch(/owners and admins|member role/);
      expectError(await who.api('DELETE', `${API}/ai/settings`), 403, 'FORBIDDEN');
      expect((await who.api('GET', `${API}/ai/settings`)).json()).toMatchObject({ configured: true, hasApiKey: true });
      const res = await who.api('POST', `${API}/ai/draft`, { brief: 'b' });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json<{ suggestions: Suggestion[] }>().suggestions[0]!.content).toBe('ok');
    }
  });
});

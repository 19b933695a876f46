import { createHash, randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createManualClock } from '../../../lib/clock.js';
import { createPlatformHttp, withSignal } from '../../../platforms/http.js';
import { PlatformError, type PlatformHttp } from '../../../platforms/platform.js';
import { VIDEO_FORMATS, VideoProviderError, type VideoFunctionContext, type VideoGenerateContext, type VideoOutput } from '../provider.js';
import { kieFailure } from './errors.js';
import { createVeo3Provider, Veo3ParamsSchema, type Veo3ProviderOptions } from './index.js';
import { KIE_ORIGIN, renderSampleMp4, startVeo3Simulator, type Veo3Simulator, type Veo3SimulatorOptions } from './veo3.simulator.js';

const KEY = 'kie-test-key';
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

let video: Buffer;
let pictures: Map<string, Buffer>;
let host: { origin: string; close(): Promise<void> };
let workRoot: string;
const RED = randomUUID();
const BLUE = randomUUID();
const GREEN = randomUUID();
const MISSING = randomUUID();

/** A tiny web server standing for the media library's public URLs (what KIE fetches). */
async function startMediaHost(files: Map<string, Buffer>) {
  const server = createServer((req, res) => {
    const id = /^\/media\/([^/]+)\.png$/.exec(req.url ?? '')?.[1];
    const body = id ? files.get(id) : undefined;
    if (!body) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': body.length }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const png = (background: string) => sharp({ create: { width: 64, height: 48, channels: 3, background } }).png().toBuffer();

beforeAll(async () => {
  video = await renderSampleMp4();
  pictures = new Map([
    [RED, await png('#d00')],
    [BLUE, await png('#00d')],
    [GREEN, await png('#0a0')],
  ]);
  host = await startMediaHost(pictures);
  workRoot = await mkdtemp(join(tmpdir(), 'veo3-test-'));
});

afterAll(async () => {
  await host?.close();
  if (workRoot) await rm(workRoot, { recursive: true, force: true });
});

interface Env {
  sim: Veo3Simulator;
  client: ReturnType<typeof createPlatformHttp>;
}

async function withVeo3<T>(opts: Veo3SimulatorOptions, fn: (env: Env) => Promise<T>): Promise<T> {
  const sim = await startVeo3Simulator({ video, ...opts });
  const client = createPlatformHttp({ origins: new Map([[KIE_ORIGIN, sim.origin]]), allowPrivateTargets: true, timeoutMs: 5000 });
  try {
    return await fn({ sim, client });
  } finally {
    await client.close();
    await sim.close();
  }
}

const polls = (sim: Veo3Simulator) => sim.log.filter((r) => r.path.startsWith('/api/v1/veo/record-info')).length;
const submits = (sim: Veo3Simulator) => sim.log.filter((r) => r.path === '/api/v1/veo/generate');

interface Harness {
  ctx: VideoGenerateContext;
  controller: AbortController;
  checkpoints: { state: Record<string, unknown>; pollsBefore: number }[];
  progress: { fraction: number; stage?: string }[];
}

function generateCtx(
  env: Env,
  o: { output?: VideoOutput; saved?: Record<string, unknown> | null; http?: (h: PlatformHttp) => PlatformHttp; onProgress?: (h: Harness, stage?: string) => void; onCheckpoint?: (h: Harness) => void } = {},
): Harness {
  const controller = new AbortController();
  const output = o.output ?? 'vertical';
  const http = withSignal(env.client, controller.signal);
  const h: Harness = {
    controller,
    checkpoints: [],
    progress: [],
    ctx: {
      organizationId: 'org-1',
      jobId: 'job-1',
      attempt: o.saved ? 2 : 1,
      workDir: workRoot,
      signal: controller.signal,
      output,
      format: VIDEO_FORMATS[output],
      saved: o.saved ?? null,
      http: o.http ? o.http(http) : http,
      progress(fraction, stage) {
        h.progress.push({ fraction, stage });
        o.onProgress?.(h, stage);
      },
      async checkpoint(state) {
        h.checkpoints.push({ state, pollsBefore: polls(env.sim) });
        o.onCheckpoint?.(h);
      },
      async media(id) {
        const path = join(workRoot, `${id}.png`);
        const bytes = pictures.get(id);
        if (bytes) await writeFile(path, bytes);
        return { id, type: 'image', mimeType: 'image/png', path, url: `${host.origin}/media/${id}.png`, width: 64, height: 48 };
      },
    },
  };
  return h;
}

/** The provider with test timings: 5 ms polls, 1 ms first retry, sleeps recorded and skipped (unless `realSleep`). */
function provider(o: Partial<Veo3ProviderOptions> & { realSleep?: boolean } = {}) {
  const sleeps: number[] = [];
  const { realSleep, ...rest } = o;
  const p = createVeo3Provider({
    apiKey: KEY,
    pollIntervalMs: 5,
    retryDelayMs: 1,
    ...(realSleep ? {} : { sleep: async (ms: number) => void sleeps.push(ms) }),
    ...rest,
  });
  return { p, sleeps };
}

async function failure(promise: Promise<unknown>): Promise<VideoProviderError> {
  const err = await promise.catch((e: unknown) => e);
  expect(err).toBeInstanceOf(VideoProviderError);
  return err as VideoProviderError;
}

describe('veo3: generating', () => {
  it('vertical with two pictures: 9:16 sent, the pictures reach KIE byte for byte, the task id is saved before the first poll, the result URL comes back', async () => {
    await withVeo3({ pollsUntilDone: 3 }, async (env) => {
      const { p } = provider();
      const h = generateCtx(env, { output: 'vertical' });
      const result = await p.generate(h.ctx, { prompt: '  A lighthouse at dawn, waves, gulls crying  ', images: [{ id: RED }, { id: BLUE, path: 'https://x/y.png' }] });

      expect(env.sim.submissions()).toBe(1);
      const task = [...env.sim.tasks.values()][0]!;
      expect(result).toEqual({ kind: 'url', url: env.sim.resultUrl(task.taskId), filename: `veo3-${task.taskId}.mp4` });
      expect(task.taskId).toMatch(/^veo_task_[0-9a-f]{24}$/);
      expect(task).toMatchObject({ prompt: 'A lighthouse at dawn, waves, gulls crying', model: 'veo3_fast', aspectRatio: '9:16', generationType: 'FIRST_AND_LAST_FRAMES_2_VIDEO', state: 'success' });
      expect(task.body).toMatchObject({ aspect_ratio: '9:16', aspectRatio: '9:16', imageUrls: [`${host.origin}/media/${RED}.png`, `${host.origin}/media/${BLUE}.png`] });
      expect(task.body).not.toHaveProperty('callBackUrl');
      expect(task.images.map((i) => i.sha256)).toEqual([sha(pictures.get(RED)!), sha(pictures.get(BLUE)!)]);
      expect(task.images.map((i) => i.contentType)).toEqual(['image/png', 'image/png']);
      for (const r of env.sim.log) expect(r.headers.authorization).toBe(`Bearer ${KEY}`);

      expect(h.checkpoints).toEqual([{ state: { taskId: task.taskId }, pollsBefore: 0 }]);
      expect(polls(env.sim)).toBe(4);
      // Progress climbs while KIE generates, stays under 0.9 until the task is done.
      const fractions = h.progress.map((x) => x.fraction);
      expect(fractions).toEqual([...fractions].sort((a, b) => a - b));
      expect(h.progress.filter((x) => x.stage === 'generating at KIE.ai').every((x) => x.fraction > 0.05 && x.fraction < 0.9)).toBe(true);
      expect(h.progress.at(-1)).toEqual({ fraction: 0.9, stage: 'generated at KIE.ai' });

      // The URL serves a real MP4.
      const res = await fetch(result.kind === 'url' ? result.url : '');
      const bytes = Buffer.from(await res.arrayBuffer());
      expect(bytes.subarray(4, 8).toString('latin1')).toBe('ftyp');
      expect(sha(bytes)).toBe(sha(video));
    });
  });

  it('horizontal text only: 16:9, TEXT_2_VIDEO, no imageUrls; the model chosen is sent and paid for', async () => {
    await withVeo3({}, async (env) => {
      const { p } = provider();
      const h = generateCtx(env, { output: 'horizontal' });
      await p.generate(h.ctx, { prompt: 'A red fox in snow', model: 'veo3' });
      const task = [...env.sim.tasks.values()][0]!;
      expect(task).toMatchObject({ model: 'veo3', aspectRatio: '16:9', generationType: 'TEXT_2_VIDEO', images: [] });
      expect(task.body).not.toHaveProperty('imageUrls');
      expect(env.sim.credits()).toBe(1000 - 250);
    });
  });

  it('three pictures are sent as reference material with veo3_fast', async () => {
    await withVeo3({ pollsUntilDone: 0 }, async (env) => {
      const { p } = provider();
      await p.generate(generateCtx(env).ctx, { prompt: 'Product shots', images: [{ id: RED }, { id: BLUE }, { id: GREEN }] });
      const task = [...env.sim.tasks.values()][0]!;
      expect(task.generationType).toBe('REFERENCE_2_VIDEO');
      expect(task.images.map((i) => i.sha256)).toEqual([RED, BLUE, GREEN].map((id) => sha(pictures.get(id)!)));
    });
  });

  it('a retry with saved.taskId resumes polling that task: no second submission', async () => {
    await withVeo3({ pollsUntilDone: 4 }, async (env) => {
      const { p } = provider({ realSleep: true });
      // Attempt 1: the worker dies right after saving the task id.
      const first = generateCtx(env, { onCheckpoint: (h) => h.controller.abort(new Error('worker killed')) });
      await expect(p.generate(first.ctx, { prompt: 'A city at night' })).rejects.toThrow('worker killed');
      expect(env.sim.submissions()).toBe(1);
      const saved = first.checkpoints[0]!.state;

      const second = generateCtx(env, { saved });
      const result = await p.generate(second.ctx, { prompt: 'A city at night' });
      expect(env.sim.submissions()).toBe(1);
      expect(submits(env.sim)).toHaveLength(1);
      expect(second.checkpoints).toEqual([]);
      expect(result).toMatchObject({ kind: 'url', url: env.sim.resultUrl(saved.taskId as string) });
      expect(second.progress[0]).toEqual({ fraction: 0.05, stage: 'resuming the KIE.ai task' });
    });
  });

  it('polls until maxWaitMs, then fails naming the task', async () => {
    await withVeo3({ pollsUntilDone: 1000 }, async (env) => {
      const clock = createManualClock();
      const p = createVeo3Provider({ apiKey: KEY, pollIntervalMs: 60_000, maxWaitMs: 5 * 60_000, clock, sleep: async (ms) => clock.advance(ms) });
      const err = await failure(p.generate(generateCtx(env).ctx, { prompt: 'Slow' }));
      const task = [...env.sim.tasks.values()][0]!;
      expect({ kind: err.kind, message: err.message }).toEqual({ kind: 'failed', message: `Veo 3 task ${task.taskId} was not finished at KIE.ai after 5 minutes` });
      expect(polls(env.sim)).toBe(6);
    });
  });

  it('an aborted signal stops polling at once', async () => {
    await withVeo3({ pollsUntilDone: 1000 }, async (env) => {
      // An hour between polls: only the abort can end this wait.
      const { p } = provider({ realSleep: true, pollIntervalMs: 3_600_000 });
      const h = generateCtx(env, { onProgress: (x, stage) => stage === 'generating at KIE.ai' && x.controller.abort(new Error('time limit reached')) });
      await expect(p.generate(h.ctx, { prompt: 'Never ends' })).rejects.toThrow('time limit reached');
      expect(polls(env.sim)).toBe(1);
    });
  });
});

describe('veo3: KIE refusals and failures', () => {
  it('a wrong key is "unavailable", naming the key and KIE’s words; nothing is created', async () => {
    await withVeo3({ apiKey: 'the-right-key' }, async (env) => {
      const { p } = provider();
      const h = generateCtx(env);
      const err = await failure(p.generate(h.ctx, { prompt: 'x' }));
      expect(err.kind).toBe('unavailable');
      expect(err.message).toBe('Veo 3 is unavailable: KIE.ai refused the API key configured for it (check KIE_API_KEY): You do not have access permissions');
      expect(env.sim.submissions()).toBe(0);
      expect(h.checkpoints).toEqual([]);
    });
  });

  it('too few credits is "unavailable" with KIE’s words', async () => {
    await withVeo3({ credits: 59 }, async (env) => {
      const { p } = provider();
      const err = await failure(p.generate(generateCtx(env).ctx, { prompt: 'x' }));
      expect({ kind: err.kind, message: err.message }).toEqual({
        kind: 'unavailable',
        message: 'Veo 3 is unavailable: the KIE.ai account has too few credits (The current credits are insufficient. Please top up.)',
      });
      expect(env.sim.submissions()).toBe(0);
      expect(env.sim.credits()).toBe(59);
    });
  });

  it('a failed task is "failed" with KIE’s message (and KIE gives the credits back)', async () => {
    await withVeo3({}, async (env) => {
      env.sim.failNextTask('Your prompt was flagged by Website as violating content policies.', 400);
      const { p } = provider();
      const err = await failure(p.generate(generateCtx(env).ctx, { prompt: 'Something flagged' }));
      expect({ kind: err.kind, message: err.message }).toEqual({
        kind: 'failed',
        message: 'Veo 3 (KIE.ai) could not make the video: Your prompt was flagged by Website as violating content policies. (code 400)',
      });
      expect(env.sim.credits()).toBe(1000);
    });
  });

  it('a picture KIE cannot fetch fails the task with KIE’s message', async () => {
    await withVeo3({}, async (env) => {
      const { p } = provider();
      const err = await failure(p.generate(generateCtx(env).ctx, { prompt: 'x', images: [{ id: MISSING }] }));
      expect(err.kind).toBe('failed');
      expect(err.message).toContain('Failed to fetch the image');
      expect([...env.sim.tasks.values()][0]!.images).toEqual([{ url: `${host.origin}/media/${MISSING}.png`, ok: false }]);
    });
  });

  it('429 and maintenance (455 under HTTP 200) during polling are retried with backoff', async () => {
    await withVeo3({ pollsUntilDone: 1 }, async (env) => {
      const { p, sleeps } = provider();
      env.sim.inject({ path: /record-info/, status: 429, body: { code: 429, msg: 'Rate Limited' }, times: 2 });
      env.sim.inject({ path: /record-info/, status: 200, body: { code: 455, msg: 'Service Unavailable - System is currently undergoing maintenance' } });
      const result = await p.generate(generateCtx(env).ctx, { prompt: 'x' });
      expect(result.kind).toBe('url');
      // 3 refused reads, then 2 real ones (generating, done); retries waited 1, 2, 4 ms, then one poll interval.
      expect(polls(env.sim)).toBe(5);
      expect(sleeps).toEqual([1, 2, 4, 5]);
      expect(env.sim.submissions()).toBe(1);
    });
  });

  it('a Retry-After longer than the backoff is waited out; a rate limit that never ends fails after the retries', async () => {
    await withVeo3({}, async (env) => {
      const { p, sleeps } = provider({ maxRetries: 2 });
      env.sim.inject({ path: /generate/, status: 429, headers: { 'retry-after': '3' }, body: { code: 429, msg: 'Rate Limited' }, times: 3 });
      const err = await failure(p.generate(generateCtx(env).ctx, { prompt: 'x' }));
      expect({ kind: err.kind, message: err.message }).toEqual({ kind: 'failed', message: 'KIE.ai kept failing (3 attempts) to take the Veo 3 task: Rate Limited (code 429)' });
      expect(sleeps).toEqual([3000, 3000]);
      expect(env.sim.submissions()).toBe(0);
    });
  });

  it('a submission whose answer was lost is not sent again', async () => {
    await withVeo3({}, async (env) => {
      const { p } = provider();
      // The request reaches KIE (a task is made), then the connection drops before the answer.
      const losing = (real: PlatformHttp): PlatformHttp => ({
        request: async (req) => {
          const res = await real.request(req);
          if (req.method === 'POST') throw new PlatformError('transient', 'POST api.kie.ai timed out', { outcomeUnknown: true });
          return res;
        },
      });
      const h = generateCtx(env, { http: losing });
      const err = await failure(p.generate(h.ctx, { prompt: 'x' }));
      expect(err.kind).toBe('failed');
      expect(err.message).toMatch(/^The answer to the Veo 3 submission was lost \(POST api\.kie\.ai timed out\): KIE\.ai may have started, and charged, a task; it is not sent again/);
      expect(submits(env.sim)).toHaveLength(1);
      expect(h.checkpoints).toEqual([]);
    });
  });

  it('classifies KIE answers by the body code first, the HTTP status otherwise', () => {
    const res = (status: number, body: unknown, headers: Record<string, string> = {}) => ({ status, headers, body });
    const kinds = [
      [res(200, { code: 200, msg: 'success', data: { taskId: 't' } }), 'submit', undefined],
      [res(401, { code: 401, msg: 'You do not have access permissions' }), 'submit', 'unavailable'],
      [res(200, { code: 401, msg: 'You do not have access permissions' }), 'poll', 'unavailable'],
      [res(200, { code: 402, msg: 'Insufficient Credits' }), 'submit', 'unavailable'],
      [res(200, { code: 505, msg: 'Feature Disabled' }), 'submit', 'unavailable'],
      [res(200, { code: 422, msg: 'prompt is required' }), 'submit', 'invalid_params'],
      [res(200, { code: 400, msg: 'flagged' }), 'submit', 'invalid_params'],
      [res(200, { code: 422, msg: 'record is null' }), 'poll', 'failed'],
      [res(200, { code: 501, msg: 'Generation Failed' }), 'poll', 'failed'],
      [res(200, { code: 451, msg: 'Failed to fetch the image.' }), 'submit', 'failed'],
      [res(200, { code: 429, msg: 'Rate Limited' }), 'poll', 'retry'],
      [res(429, { code: 429, msg: 'Rate Limited' }), 'submit', 'retry'],
      [res(200, { code: 455, msg: 'maintenance' }), 'credits', 'retry'],
      [res(502, '<html>Bad gateway</html>'), 'poll', 'retry'],
      [res(200, '<html>a proxy page</html>'), 'poll', 'retry'],
    ] as const;
    for (const [r, op, kind] of kinds) expect({ r, op, kind: kieFailure(r, op)?.kind }).toEqual({ r, op, kind });
    expect(kieFailure(res(429, { code: 429, msg: 'slow down' }, { 'retry-after': '7' }), 'poll')).toEqual({ kind: 'retry', code: 429, message: 'slow down', retryAfterMs: 7000 });
  });
});

describe('veo3: metadata and customParams', () => {
  const { p } = provider();

  it('describes itself as the reference’s veo3 type, remote, both outputs, one credit', () => {
    expect(p.metadata).toMatchObject({ identifier: 'veo3', name: 'Veo 3 (KIE.ai)', runsOn: 'remote', outputs: ['vertical', 'horizontal'], creditCost: 1 });
    expect(createVeo3Provider({ apiKey: KEY, creditCost: 3 }).metadata.creditCost).toBe(3);
    const schema = z.toJSONSchema(p.metadata.customParams, { io: 'input' }) as { properties: Record<string, { description?: string }>; required: string[]; additionalProperties: boolean };
    expect(schema.required).toEqual(['prompt']);
    expect(schema.additionalProperties).toBe(false);
    for (const k of ['prompt', 'images', 'model']) expect(schema.properties[k]?.description).toBeTruthy();
    expect(p.metadata.mediaReferences(Veo3ParamsSchema.parse({ prompt: 'x', images: [{ id: RED }, { id: BLUE }] }))).toEqual([
      { field: 'images.0.id', id: RED, accept: ['image'] },
      { field: 'images.1.id', id: BLUE, accept: ['image'] },
    ]);
    expect(p.metadata.mediaReferences(Veo3ParamsSchema.parse({ prompt: 'x' }))).toEqual([]);
  });

  it('refuses bad customParams with the path of the field', () => {
    const paths = (v: unknown) => {
      const r = Veo3ParamsSchema.safeParse(v);
      return r.success ? [] : r.error.issues.map((i) => i.path.join('.'));
    };
    expect(paths({ prompt: '   ' })).toEqual(['prompt']);
    expect(paths({})).toEqual(['prompt']);
    expect(paths({ prompt: 'x'.repeat(2001) })).toEqual(['prompt']);
    expect(paths({ prompt: 'x', images: [RED, BLUE, GREEN, randomUUID()].map((id) => ({ id })) })).toEqual(['images']);
    expect(paths({ prompt: 'x', images: [{ id: 'not-a-uuid' }] })).toEqual(['images.0.id']);
    expect(paths({ prompt: 'x', model: 'veo2' })).toEqual(['model']);
    expect(paths({ prompt: 'x', model: 'veo3', images: [{ id: RED }, { id: BLUE }, { id: GREEN }] })).toEqual(['images']);
    const extra = Veo3ParamsSchema.safeParse({ prompt: 'x', seconds: 8 });
    expect(extra.success ? [] : extra.error.issues.map((i) => [i.code, (i as { keys?: string[] }).keys])).toEqual([['unrecognized_keys', ['seconds']]]);
    expect(Veo3ParamsSchema.parse({ prompt: ' x ' })).toEqual({ prompt: 'x', model: 'veo3_fast' });
  });

  it('generate refuses bad params itself, naming the field, before anything is sent', async () => {
    await withVeo3({}, async (env) => {
      const err = await failure(p.generate(generateCtx(env).ctx, { prompt: '' }));
      expect({ kind: err.kind, field: err.field }).toEqual({ kind: 'invalid_params', field: 'prompt' });
      const four = await failure(p.generate(generateCtx(env).ctx, { prompt: 'x', images: [RED, BLUE, GREEN, MISSING].map((id) => ({ id })) }));
      expect({ kind: four.kind, field: four.field }).toEqual({ kind: 'invalid_params', field: 'images' });
      expect(env.sim.log).toEqual([]);
    });
  });
});

describe('veo3: the credits function', () => {
  const fnCtx = (env: Env): VideoFunctionContext => {
    const signal = new AbortController().signal;
    return { organizationId: 'org-1', workDir: workRoot, signal, http: withSignal(env.client, signal), media: () => Promise.reject(new Error('no media here')) };
  };

  it('answers the KIE account’s balance, which a generation lowers', async () => {
    await withVeo3({ credits: 500, pollsUntilDone: 0 }, async (env) => {
      const { p } = provider();
      expect(p.metadata.functions.credits?.params.safeParse({}).success).toBe(true);
      expect(await p.callFunction('credits', fnCtx(env), {})).toEqual({ credits: 500 });
      await p.generate(generateCtx(env).ctx, { prompt: 'x' });
      expect(await p.callFunction('credits', fnCtx(env), {})).toEqual({ credits: 440 });
      expect(env.sim.log.filter((r) => r.path === '/api/v1/chat/credit').map((r) => r.headers.authorization)).toEqual([`Bearer ${KEY}`, `Bearer ${KEY}`]);
    });
  });

  it('a wrong key is "unavailable"; unknown functions and parameters are refused', async () => {
    await withVeo3({ apiKey: 'other' }, async (env) => {
      const { p } = provider();
      const err = await failure(p.callFunction('credits', fnCtx(env), {}));
      expect(err.kind).toBe('unavailable');
      expect(err.message).toContain('API key');
      const unknown = await failure(p.callFunction('balance', fnCtx(env), {}));
      expect(unknown.kind).toBe('invalid_params');
      const extra = await failure(p.callFunction('credits', fnCtx(env), { all: true }));
      expect(extra.kind).toBe('invalid_params');
    });
  });
});

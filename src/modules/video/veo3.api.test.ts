import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { call, expectError, useTestApp } from '../../../test/helpers.js';
import type { MediaItem } from '../media/media.schemas.js';
import type { VideoCredits, VideoJob } from './video.schemas.js';
import { KIE_ORIGIN, renderSampleMp4, startVeo3Simulator, type Veo3Simulator } from '../../core/video-providers/veo3/veo3.simulator.js';

/**
 * The outside provider behind the same contract, through the HTTP API with the worker running:
 * `POST /generate-video` with `type: veo3` submits to KIE.ai (the simulator), the worker polls the
 * task, downloads the result (SSRF-guarded fetch) into the media library; a task KIE fails is a 422
 * with KIE's words and the credit refunded.
 */

const KEY = 'kie-test-key-0123456789';
let sim: Veo3Simulator;
let video: Buffer;
let dataDir: string;

afterAll(async () => {
  await sim?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const { t, orgs: { acme: org } } = useTestApp(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'tidings-veo3-api-'));
  video = await renderSampleMp4('720x1280');
  sim = await startVeo3Simulator({ apiKey: KEY, pollsUntilDone: 2, video });
  return {
    startWorker: true,
    env: { DATA_DIR: dataDir, KIE_API_KEY: KEY, VIDEO_REMOTE_POLL_MS: '20', PLATFORM_ORIGINS: `${KIE_ORIGIN}=${sim.origin}`, ALLOW_PRIVATE_TARGETS: 'true', VIDEO_REQUEST_WAIT_SECONDS: '60' },
  };
}, 'Acme');

const generate = (payload: unknown) => call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/generate-video', payload: payload as object });

describe('veo3 (KIE.ai) through the HTTP API', () => {
  it('is listed beside the built-in provider when its key is set', async () => {
    const res = await call(t.app, org.apiKey, { method: 'GET', url: '/public/v1/video/providers' });
    expect(res.json<{ providers: { identifier: string; runsOn: string }[] }>().providers.map((p) => [p.identifier, p.runsOn])).toEqual([
      ['slides', 'local'],
      ['veo3', 'remote'],
    ]);
  });

  it('generates a vertical video: one KIE task at 9:16, the result stored byte for byte as a media item', async () => {
    const res = await generate({ type: 'veo3', output: 'vertical', customParams: { prompt: 'A lighthouse at dawn, waves, slow pan' } });
    expect(res.statusCode, res.body).toBe(201);
    const m = res.json<MediaItem>();
    expect(m).toMatchObject({ type: 'video', mimeType: 'video/mp4', width: 720, height: 1280 });
    expect(sim.submissions()).toBe(1);
    const task = [...sim.tasks.values()][0]!;
    expect(task).toMatchObject({ prompt: 'A lighthouse at dawn, waves, slow pan', aspectRatio: '9:16', state: 'success' });
    const stored = await readFile(join(dataDir, 'media', new URL(m.path).pathname.replace(/^\/media\//, '')));
    expect(createHash('sha256').update(stored).digest('hex')).toBe(createHash('sha256').update(video).digest('hex'));
  });

  it('a task KIE fails answers 422 with its words, and the credit is refunded', async () => {
    sim.failNextTask('Your prompt was flagged by the content policy.');
    const res = expectError(await generate({ type: 'veo3', output: 'horizontal', customParams: { prompt: 'something flagged' } }), 422, 'VIDEO_GENERATION_FAILED');
    expect(res.message).toMatch(/credits were refunded\): .*flagged by the content policy/);
    const jobs = (await call(t.app, org.apiKey, { method: 'GET', url: '/public/v1/video/jobs' })).json<{ jobs: VideoJob[] }>().jobs;
    expect(jobs[0]).toMatchObject({ type: 'veo3', status: 'failed', creditState: 'refunded' });
    const credits = (await call(t.app, org.apiKey, { method: 'GET', url: '/public/v1/video/credits' })).json<VideoCredits>();
    expect(credits).toMatchObject({ used: 1, reserved: 0 });
  });

  it('refuses customParams KIE would refuse, naming the field (nothing submitted)', async () => {
    const before = sim.submissions();
    const empty = expectError(await generate({ type: 'veo3', output: 'vertical', customParams: { prompt: '   ' } }), 400, 'VALIDATION_FAILED');
    expect(empty.fields![0]!.path).toBe('customParams.prompt');
    expect(sim.submissions()).toBe(before);
  });
});

import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import ffmpegInstaller from '@ffmpeg-installer/ffmpeg';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManualClock } from '../../lib/clock.js';
import { eventsOf, waitFor } from '../../../test/factories.js';
import { buildTestApp, call, expectError, expectIsolated, type TestApp, type TestOrg } from '../../../test/helpers.js';
import { uploadMedia } from '../../../test/media.js';
import { APP, platformOriginsEnv, youtubeSimulator } from '../../platforms/youtube/youtube.testkit.js';
import { callbackUrl, platformApi, PUBLIC_URL, sha } from '../../../test/platform-api-kit.js';
import type { YoutubeSimulator } from '../../platforms/youtube/youtube.simulator.js';
import type { MediaItem } from '../media/media.schemas.js';
import type { VideoCredits, VideoJob } from './video.schemas.js';

/**
 * Video generation end to end through the HTTP API with the worker running: real MP4s made by the
 * built-in slides provider (its encoder is the static ffmpeg from the npm registry), stored as media
 * items whose container the media pipeline read (duration, size, codecs); one attached to a post and
 * published to the YouTube simulator byte for byte; credits reserved, spent, refunded, refused and
 * renewed; jobs scoped to their organisation.
 */

const youtube = platformApi('youtube');
const run = promisify(execFile);

let t: TestApp;
let clock: ManualClock;
let acme: TestOrg;
let other: TestOrg;
let dataDir: string;
let sim: YoutubeSimulator;
let songItem: MediaItem | undefined;

beforeAll(async () => {
  sim = await youtubeSimulator({ processingPolls: 1 });
  sim.apps.get(APP.clientId)!.redirectUris = [callbackUrl('youtube')];
  await youtube.start({
    env: { PUBLIC_URL, PLATFORM_ORIGINS: platformOriginsEnv(sim), YOUTUBE_CLIENT_ID: APP.clientId, YOUTUBE_CLIENT_SECRET: APP.clientSecret, VIDEO_REQUEST_WAIT_SECONDS: '120' },
  });
  ({ t, clock, org: acme } = youtube);
  dataDir = t.deps.config.dataDir;
  other = await t.createOrg('Other');
});

afterAll(async () => {
  await youtube.close();
  await sim?.close();
});

const generate = (org: TestOrg, payload: unknown, headers: Record<string, string> = {}) =>
  call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/generate-video', payload: payload as object, headers });

async function job(org: TestOrg, id: string): Promise<VideoJob> {
  const res = await call(t.app, org.apiKey, { method: 'GET', url: `/public/v1/video/jobs/${id}` });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<VideoJob>();
}

const finished = (org: TestOrg, id: string) => waitFor(async () => ((j) => (j.status === 'succeeded' || j.status === 'failed' ? j : undefined))(await job(org, id)), 120_000, `video job ${id}`);

async function credits(org: TestOrg): Promise<VideoCredits> {
  const res = await call(t.app, org.apiKey, { method: 'GET', url: '/public/v1/video/credits' });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<VideoCredits>();
}

async function picture(color: string, width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: color } }).png().toBuffer();
}

async function music(seconds: number): Promise<Buffer> {
  const file = join(dataDir, `music-${seconds}.m4a`);
  await run(ffmpegInstaller.path, ['-v', 'error', '-y', '-f', 'lavfi', '-i', `sine=frequency=330:duration=${seconds}`, '-c:a', 'aac', file]);
  return readFile(file);
}

const textOnly = { slides: [{ text: 'Hello from Tidings', duration: 1 }, { text: 'Second slide', caption: 'a caption', duration: 1, transition: 'cut' }] };

describe('video providers and functions', () => {
  it('lists the built-in slides provider with its formats, cost, customParams schema and functions', async () => {
    const res = await call(t.app, acme.apiKey, { method: 'GET', url: '/public/v1/video/providers' });
    expect(res.statusCode, res.body).toBe(200);
    const slides = res.json<{ providers: { identifier: string; runsOn: string; outputs: unknown[]; creditCost: number; customParams: { properties: Record<string, unknown> }; functions: { name: string }[] }[] }>().providers.find((p) => p.identifier === 'slides')!;
    expect(slides.runsOn).toBe('local');
    expect(slides.outputs).toEqual([
      { output: 'vertical', width: 1080, height: 1920 },
      { output: 'horizontal', width: 1920, height: 1080 },
    ]);
    expect(slides.creditCost).toBe(1);
    expect(Object.keys(slides.customParams.properties)).toEqual(expect.arrayContaining(['slides', 'audio', 'template', 'font']));
    expect(slides.functions.map((f) => f.name).sort()).toEqual(['listFonts', 'listTemplates', 'preview']);
  });

  it('answers listTemplates, listFonts and a PNG preview of the first slide; refuses unknown functions and providers', async () => {
    const fn = (payload: unknown) => call(t.app, acme.apiKey, { method: 'POST', url: '/public/v1/video/function', payload: payload as object });
    const templates = await fn({ identifier: 'slides', functionName: 'listTemplates', params: {} });
    expect(templates.statusCode, templates.body).toBe(200);
    expect(templates.json<{ templates: { id: string }[] }>().templates.length).toBeGreaterThan(1);
    const fonts = await fn({ identifier: 'slides', functionName: 'listFonts' });
    expect(fonts.statusCode, fonts.body).toBe(200);
    expect(fonts.json<{ fonts: { family: string }[] }>().fonts[0]!.family).toBe('Inter');
    const preview = await fn({ identifier: 'slides', functionName: 'preview', params: { output: 'horizontal', customParams: textOnly } });
    expect(preview.statusCode, preview.body).toBe(200);
    const png = Buffer.from(preview.json<{ mimeType: string; data: string }>().data, 'base64');
    expect(await sharp(png).metadata()).toMatchObject({ format: 'png', width: 1920, height: 1080 });
    const unknownFn = expectError(await fn({ identifier: 'slides', functionName: 'loadVoices', params: {} }), 400, 'VALIDATION_FAILED');
    expect(unknownFn.fields![0]!.path).toBe('functionName');
    expectError(await fn({ identifier: 'sora', functionName: 'x' }), 404, 'VIDEO_PROVIDER_NOT_AVAILABLE');
    const badParams = expectError(await fn({ identifier: 'slides', functionName: 'preview', params: { customParams: { slides: [] } } }), 400, 'VALIDATION_FAILED');
    expect(badParams.fields![0]!.path).toMatch(/^params\.customParams\.slides/);
  });
});

describe('generating videos', () => {
  it('makes a vertical text-only MP4 (H.264 + AAC) and answers the media item, as the reference does', async () => {
    const res = await generate(acme, { type: 'slides', output: 'vertical', customParams: textOnly });
    expect(res.statusCode, res.body).toBe(201);
    const m = res.json<MediaItem>();
    expect(m).toMatchObject({ type: 'video', mimeType: 'video/mp4', width: 1080, height: 1920 });
    expect(m.duration!).toBeCloseTo(2, 0);
    expect(m.codecs).toMatch(/^avc1\.[0-9a-f]{6},mp4a\.40\.2$/);
    // The job the answer came from: succeeded, its credit spent, the media item attached.
    const jobs = (await call(t.app, acme.apiKey, { method: 'GET', url: '/public/v1/video/jobs' })).json<{ jobs: VideoJob[] }>().jobs;
    expect(jobs[0]).toMatchObject({ status: 'succeeded', creditState: 'spent', attempts: 1, progress: 1, media: { id: m.id } });
    // Webhooks hear of it: a video.succeeded event written with the media row.
    const events = (await eventsOf(t, acme.id)).filter((e) => e.type.startsWith('video.'));
    expect(events).toEqual([{ type: 'video.succeeded', payload: expect.objectContaining({ job: { id: jobs[0]!.id, type: 'slides', output: 'vertical' }, media: expect.objectContaining({ id: m.id, width: 1080, height: 1920 }), credits: 1 }) }]);
  });

  it('makes a horizontal video of pictures with background music (202 with Prefer: respond-async, then the job)', async () => {
    const red = await uploadMedia(t, acme, await picture('#c0392b', 1200, 800), 'red.png');
    const blue = await uploadMedia(t, acme, await picture('#2980b9', 640, 640), 'blue.png');
    const song = await uploadMedia(t, acme, await music(5), 'song.m4a');
    expect(song).toMatchObject({ type: 'audio', mimeType: 'audio/x-m4a' });
    const res = await generate(
      acme,
      {
        type: 'slides',
        output: 'horizontal',
        customParams: {
          template: 'caption',
          slides: [
            { image: { id: red.id, path: red.path }, caption: 'Red', duration: 1.5, transition: 'crossfade' },
            { image: { id: blue.id }, text: 'Blue', duration: 1.5 },
          ],
          audio: { id: song.id, volume: 0.5 },
        },
      },
      { prefer: 'respond-async' },
    );
    expect(res.statusCode, res.body).toBe(202);
    expect(res.headers.location).toBe(`video/jobs/${res.json<VideoJob>().id}`);
    expect(res.json<VideoJob>()).toMatchObject({ status: 'queued', creditState: 'reserved', credits: 1 });
    const done = await finished(acme, res.json<VideoJob>().id);
    expect(done, JSON.stringify(done)).toMatchObject({ status: 'succeeded', creditState: 'spent' });
    expect(done.media).toMatchObject({ type: 'video', width: 1920, height: 1080 });
    expect(done.media!.duration!).toBeCloseTo(3, 0);
    expect(done.media!.codecs).toMatch(/mp4a\.40\.2/);
    songItem = song;
  });

  it('attaches a generated video to a post and publishes it to YouTube byte for byte', async () => {
    const { channel } = await youtube.connectThroughOAuth();

    const made = await generate(acme, { type: 'slides', output: 'horizontal', customParams: { slides: [{ text: 'Watch this', duration: 2 }] } });
    expect(made.statusCode, made.body).toBe(201);
    const video = made.json<MediaItem>();
    const bytes = await readFile(join(dataDir, 'media', new URL(video.path).pathname.replace(/^\/media\//, '')));

    // An audio file is for generated videos, not posts.
    const withAudio = expectError(await youtube.createPost(channel.id, { title: 'Song', type: 'unlisted' }, [{ content: 'x', image: [{ id: songItem!.id, path: songItem!.path }] }]), 400, 'VALIDATION_FAILED');
    expect(withAudio.fields![0]).toMatchObject({ path: 'posts.0.value.0.image.0', message: expect.stringMatching(/audio file/) });
    const post = await youtube.publish(channel.id, { title: 'Made by Tidings', type: 'unlisted' }, [{ content: 'A generated video', image: [{ id: video.id, path: video.path }] }]);
    expect(sim.lookup(post.releaseId!)).toEqual({ text: 'A generated video', mediaSha256: [sha(bytes)] });
  });

  it('refuses customParams that do not fit the provider with a 400 naming the field', async () => {
    const noSlides = expectError(await generate(acme, { type: 'slides', output: 'vertical', customParams: { slides: [] } }), 400, 'VALIDATION_FAILED');
    expect(noSlides.fields![0]!.path).toBe('customParams.slides');
    const badDuration = expectError(await generate(acme, { type: 'slides', output: 'vertical', customParams: { slides: [{ text: 'x', duration: 0 }] } }), 400, 'VALIDATION_FAILED');
    expect(badDuration.fields![0]!.path).toBe('customParams.slides.0.duration');
    const foreign = await uploadMedia(t, other, await picture('#000000', 100, 100), 'theirs.png');
    const notOurs = expectError(await generate(acme, { type: 'slides', output: 'vertical', customParams: { slides: [{ image: { id: foreign.id } }] } }), 400, 'VALIDATION_FAILED');
    expect(notOurs.fields![0]).toMatchObject({ path: 'customParams.slides.0.image.id', message: expect.stringMatching(/no media item/) });
    const pictureAsMusic = await uploadMedia(t, acme, await picture('#ffffff', 50, 50), 'white.png');
    const wrongKind = expectError(await generate(acme, { type: 'slides', output: 'vertical', customParams: { slides: [{ text: 'x' }], audio: { id: pictureAsMusic.id } } }), 400, 'VALIDATION_FAILED');
    expect(wrongKind.fields![0]).toMatchObject({ path: 'customParams.audio.id', message: expect.stringMatching(/is a image; this field takes audio/) });
    const badOutput = expectError(await generate(acme, { type: 'slides', output: 'square', customParams: textOnly }), 400, 'VALIDATION_FAILED');
    expect(badOutput.fields![0]!.path).toBe('output');
    const unknownType = expectError(await generate(acme, { type: 'veo3', output: 'vertical', customParams: { prompt: 'x' } }), 404, 'VIDEO_PROVIDER_NOT_AVAILABLE');
    expect(unknownType.message).toMatch(/"veo3" is not available in this deployment; available: slides/);
  });

  it('keeps jobs to their organisation (404 elsewhere)', async () => {
    const res = await generate(acme, { type: 'slides', output: 'vertical', customParams: textOnly }, { prefer: 'respond-async' });
    expect(res.statusCode, res.body).toBe(202);
    const id = res.json<VideoJob>().id;
    await expectIsolated(t.app, { method: 'GET', url: `/public/v1/video/jobs/${id}` }, acme, other);
    expect((await call(t.app, other.apiKey, { method: 'GET', url: '/public/v1/video/jobs' })).json<{ jobs: unknown[] }>().jobs).toEqual([]);
    expectError(await call(t.app, acme.apiKey, { method: 'GET', url: '/public/v1/video/jobs/not-a-uuid' }), 404, 'NOT_FOUND');
    await finished(acme, id);
  });
});

describe('video credits', () => {
  it('reserves, spends, refunds a failed generation, refuses with 403 when spent, per organisation, and renews monthly', async () => {
    await t.deps.services.plans.setVideoCredits('free', 2);
    const org = await t.createOrg('Small');
    await t.deps.services.organizations.setPlan(org.id, 'free');
    expect(await credits(org)).toMatchObject({ plan: 'free', allowance: 2, used: 0, reserved: 0, remaining: 2 });

    // A generation that fails (its picture is deleted before the worker reads it) is refunded.
    const pic = await uploadMedia(t, org, await picture('#00ff00', 300, 300), 'green.png');
    await t.deps.videoWorker!.stop();
    const doomed = await generate(org, { type: 'slides', output: 'vertical', customParams: { slides: [{ image: { id: pic.id }, duration: 1 }] } }, { prefer: 'respond-async' });
    expect(doomed.statusCode, doomed.body).toBe(202);
    expect(await credits(org)).toMatchObject({ used: 0, reserved: 1, remaining: 1 });
    expect((await call(t.app, org.apiKey, { method: 'DELETE', url: `/public/v1/media/${pic.id}` })).statusCode).toBe(200);
    await t.deps.videoWorker!.start();
    const failed = await finished(org, doomed.json<VideoJob>().id);
    expect(failed).toMatchObject({ status: 'failed', creditState: 'refunded', media: null, error: expect.stringMatching(/gone|missing/) });
    expect(await credits(org)).toMatchObject({ used: 0, reserved: 0, remaining: 2 });
    expect((await eventsOf(t, org.id)).filter((e) => e.type.startsWith('video.'))).toEqual([
      { type: 'video.failed', payload: expect.objectContaining({ job: expect.objectContaining({ id: failed.id }), error: failed.error, credits: 1 }) },
    ]);

    // Two succeed and use the month's allowance; the third is refused naming the limit.
    for (let i = 0; i < 2; i++) expect((await generate(org, { type: 'slides', output: 'vertical', customParams: { slides: [{ text: `n${i}`, duration: 1 }] } })).statusCode).toBe(201);
    expect(await credits(org)).toMatchObject({ used: 2, reserved: 0, remaining: 0 });
    const refused = expectError(await generate(org, { type: 'slides', output: 'vertical', customParams: textOnly }), 403, 'PLAN_LIMIT_REACHED');
    expect(refused.message).toMatch(/videoCredits — the "free" plan allows 2 video credits per month/);
    // Another organisation on the same plan has its own credits.
    const neighbour = await t.createOrg('Neighbour');
    await t.deps.services.organizations.setPlan(neighbour.id, 'free');
    expect(await credits(neighbour)).toMatchObject({ used: 0, remaining: 2 });
    // A grant from the admin gives one more this month.
    await t.deps.services.video.grantCredits(org.id, 1, 'goodwill');
    expect(await credits(org)).toMatchObject({ granted: 1, remaining: 1 });

    // Next month: the allowance is whole again (the grant was for the month it was given in).
    const now = new Date(clock.now());
    clock.set(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1, 0, 0, 1));
    const renewed = await credits(org);
    expect(renewed).toMatchObject({ allowance: 2, granted: 0, used: 0, remaining: 2 });
    expect(renewed.period).not.toBe(now.toISOString().slice(0, 7));
    expect((await generate(org, { type: 'slides', output: 'vertical', customParams: { slides: [{ text: 'new month', duration: 1 }] } })).statusCode).toBe(201);
  });
});

describe('the time limit', () => {
  it('stops an encode that runs past VIDEO_TIME_LIMIT_SECONDS: failed with the reason, credit refunded, nothing stored', async () => {
    const limited = await buildTestApp({ startWorker: true, env: { DATA_DIR: join(dataDir, 'limited'), VIDEO_TIME_LIMIT_SECONDS: '1', VIDEO_REQUEST_WAIT_SECONDS: '60' } });
    try {
      const org = await limited.createOrg('Hurried');
      const long = { slides: Array.from({ length: 6 }, (_, i) => ({ text: `slide ${i}`, duration: 10 })) };
      const res = expectError(await call(limited.app, org.apiKey, { method: 'POST', url: '/public/v1/generate-video', payload: { type: 'slides', output: 'vertical', customParams: long } }), 422, 'VIDEO_GENERATION_FAILED');
      expect(res.message).toMatch(/credits were refunded\): the generation took longer than the time limit of 1 s/);
      expect((await call(limited.app, org.apiKey, { method: 'GET', url: '/public/v1/media' })).json<{ media: unknown[] }>().media).toEqual([]);
      expect((await call(limited.app, org.apiKey, { method: 'GET', url: '/public/v1/video/credits' })).json<VideoCredits>()).toMatchObject({ used: 0, reserved: 0 });
    } finally {
      await limited.close();
    }
  });
});

describe('a deployment without video providers', () => {
  it('answers 404 naming that video generation is off, and lists no provider', async () => {
    const off = await buildTestApp({ env: { VIDEO_LOCAL_PROVIDER: 'off' } });
    try {
      const org = await off.createOrg('Off');
      const res = expectError(await call(off.app, org.apiKey, { method: 'POST', url: '/public/v1/generate-video', payload: { type: 'slides', output: 'vertical', customParams: textOnly } }), 404, 'VIDEO_PROVIDER_NOT_AVAILABLE');
      expect(res.message).toMatch(/no video provider is available in this deployment.*VIDEO_LOCAL_PROVIDER=off/);
      expect((await call(off.app, org.apiKey, { method: 'GET', url: '/public/v1/video/providers' })).json()).toEqual({ providers: [] });
    } finally {
      await off.close();
    }
  });
});

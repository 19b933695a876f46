import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { RangeReader } from '../../media/storage.js';
import { findMovieBoxes, readMovieMetadata } from '../../media/video-metadata.js';
import { VIDEO_FORMATS, VideoProviderError, type VideoGenerateContext, type VideoMediaFile, type VideoOutput } from '../provider.js';
import { createLocalSlidesProvider } from './index.js';

/**
 * The slides provider end to end: real sharp, real ffmpeg (the bundled static 4.1), real files,
 * the MP4s read back with the media pipeline's own mp4box reader. Videos last 2–5 s (the abort
 * case is longer but is stopped at once) so the file stays well under a minute on a busy machine.
 */

const run = promisify(execFile);
const FFMPEG = (createRequire(import.meta.url)('@ffmpeg-installer/ffmpeg') as { path: string }).path;

let root: string;
const media = new Map<string, VideoMediaFile>();

async function addMedia(type: VideoMediaFile['type'], name: string, write: (path: string) => Promise<unknown>): Promise<string> {
  const id = randomUUID();
  const path = join(root, 'library', name);
  await write(path);
  media.set(id, { id, type, mimeType: 'application/octet-stream', path, url: `https://media.example/${name}`, width: null, height: null });
  return id;
}

/** A picture of one colour (cover-fitted, it fills the frame). */
const solid = (colour: string) => (path: string) => sharp({ create: { width: 320, height: 180, channels: 3, background: colour } }).png().toFile(path);

let red: string;
let green: string;
let blue: string;
let rotated: string;
let notAPicture: string;
let shortMusic: string;
let longMusic: string;
let brokenAudio: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'tidings-slides-'));
  await mkdir(join(root, 'library'));
  red = await addMedia('image', 'red.png', solid('#ff0000'));
  green = await addMedia('image', 'green.png', solid('#00ff00'));
  blue = await addMedia('image', 'blue.png', solid('#0000ff'));
  // Stored 200×100, left half red, right half yellow, EXIF orientation 6 (turn 90° clockwise):
  // upright it is 100×200, red above yellow.
  rotated = await addMedia('image', 'rotated.jpg', async (path) => {
    const raw = Buffer.alloc(200 * 100 * 3);
    for (let i = 0; i < 200 * 100; i++) {
      raw[i * 3] = 255;
      raw[i * 3 + 1] = i % 200 < 100 ? 0 : 255;
    }
    await sharp(raw, { raw: { width: 200, height: 100, channels: 3 } }).jpeg({ quality: 95 }).withMetadata({ orientation: 6 }).toFile(path);
  });
  notAPicture = await addMedia('image', 'not-a-picture.png', (path) => writeFile(path, 'this is not a picture'));
  // A 3 s and an 8 s tone, made by the same ffmpeg.
  const tone = (seconds: number) => (path: string) => run(FFMPEG, ['-v', 'error', '-f', 'lavfi', '-i', `sine=f=440:d=${seconds}`, '-c:a', 'aac', path]);
  shortMusic = await addMedia('audio', 'short.m4a', tone(3));
  longMusic = await addMedia('audio', 'long.m4a', tone(8));
  brokenAudio = await addMedia('audio', 'broken.m4a', (path) => writeFile(path, 'not audio at all'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

interface Ctx extends VideoGenerateContext {
  reports: { fraction: number; stage: string | undefined }[];
}

async function makeCtx(output: VideoOutput, opts: { signal?: AbortSignal; onProgress?: (fraction: number, stage?: string) => void } = {}): Promise<Ctx> {
  const workDir = await mkdtemp(join(root, 'job-'));
  const reports: Ctx['reports'] = [];
  return {
    organizationId: randomUUID(),
    workDir,
    signal: opts.signal ?? new AbortController().signal,
    media: (id) => {
      const item = media.get(id);
      return item ? Promise.resolve(item) : Promise.reject(new Error(`no media ${id}`));
    },
    http: {} as VideoGenerateContext['http'],
    jobId: randomUUID(),
    attempt: 1,
    output,
    format: VIDEO_FORMATS[output],
    progress(fraction, stage) {
      reports.push({ fraction, stage });
      opts.onProgress?.(fraction, stage);
    },
    saved: null,
    checkpoint: () => Promise.resolve(),
    reports,
  };
}

/** A RangeReader over a local file: the MP4 is read the way the media pipeline reads stored ones. */
async function withFileReader<T>(path: string, f: (reader: RangeReader) => Promise<T>): Promise<T> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    const reader: RangeReader = {
      size,
      async read(start, end) {
        const buf = Buffer.alloc(end - start + 1);
        const { bytesRead } = await handle.read(buf, 0, buf.length, start);
        return buf.subarray(0, bytesRead);
      },
    };
    return await f(reader);
  } finally {
    await handle.close();
  }
}

/** Duration, size, codecs and whether `moov` precedes `mdat` (faststart). */
async function inspect(path: string) {
  return withFileReader(path, async (reader) => {
    const meta = await readMovieMetadata(reader);
    const { moov } = await findMovieBoxes(reader);
    // Top-level box headers in order, to find where the media data starts.
    const types: string[] = [];
    for (let pos = 0; pos < reader.size; ) {
      const head = await reader.read(pos, pos + 7);
      types.push(head.toString('latin1', 4, 8));
      pos += head.readUInt32BE(0);
    }
    return { ...meta, moovStart: moov.start, types };
  });
}

/** The frame at `seconds`, decoded by ffmpeg, as RGB. */
async function frameAt(video: string, seconds: number): Promise<{ data: Buffer; width: number; height: number }> {
  const png = join(root, `frame-${randomUUID()}.png`);
  await run(FFMPEG, ['-v', 'error', '-ss', String(seconds), '-i', video, '-frames:v', '1', png]);
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** The RGB of pixel (x, y) of the frame at `seconds`. */
async function pixelAt(video: string, seconds: number, x: number, y: number): Promise<[number, number, number]> {
  const { data, width } = await frameAt(video, seconds);
  const o = (y * width + x) * 3;
  return [data[o]!, data[o + 1]!, data[o + 2]!];
}

/** Mean loudness (dB) of the audio between `from` and `from + length` seconds. */
async function meanVolume(video: string, from: number, length: number): Promise<number> {
  const { stderr } = await run(FFMPEG, ['-hide_banner', '-ss', String(from), '-t', String(length), '-i', video, '-vn', '-af', 'volumedetect', '-f', 'null', '-']);
  const m = /mean_volume: (-?[\d.]+|-inf) dB/.exec(stderr);
  if (!m) throw new Error(`no volume in ${stderr}`);
  return m[1] === '-inf' ? -Infinity : Number(m[1]);
}

const near = (actual: readonly number[], expected: readonly number[], tolerance: number) =>
  actual.every((v, i) => Math.abs(v - expected[i]!) <= tolerance);

// Encoding takes seconds on a loaded machine; the unit project's default is 5 s.
describe('slides provider: generate', { timeout: 60_000 }, () => {
  const provider = createLocalSlidesProvider({ threads: 2 });

  it('text only, vertical: 1 s + 2 s → a 3 s 1080×1920 H.264 high + AAC faststart MP4, background where nothing is drawn', async () => {
    const ctx = await makeCtx('vertical');
    const result = await provider.generate(ctx, {
      background: '#204060',
      slides: [
        { text: 'First <slide> & "quotes"', duration: 1, transition: 'cut' },
        { text: 'Second', caption: 'with a caption', duration: 2 },
      ],
    });
    expect(result).toEqual({ kind: 'file', path: join(ctx.workDir, 'video.mp4'), filename: 'slides-vertical.mp4' });
    if (result.kind !== 'file') throw new Error('unreachable');

    const info = await inspect(result.path);
    expect(info.duration).toBeGreaterThanOrEqual(2.9);
    expect(info.duration).toBeLessThanOrEqual(3.1);
    expect({ width: info.width, height: info.height }).toEqual({ width: 1080, height: 1920 });
    // avc1.64…: profile_idc 0x64 = High; mp4a.40.2 = AAC LC
    expect(info.codecs).toMatch(/^avc1\.64[0-9a-f]{4},mp4a\.40\.2$/);
    expect(info.types.indexOf('moov')).toBeGreaterThanOrEqual(0);
    expect(info.types.indexOf('moov')).toBeLessThan(info.types.indexOf('mdat'));

    // Rendering proven on a decoded frame: a corner far from the text has the background colour.
    expect(near(await pixelAt(result.path, 0.5, 20, 20), [0x20, 0x40, 0x60], 6)).toBe(true);
    // ...and the text is there: white pixels in the frame
    const frame = await frameAt(result.path, 0.5);
    let white = 0;
    for (let i = 0; i < frame.width * frame.height; i++) if (Math.min(frame.data[i * 3]!, frame.data[i * 3 + 1]!, frame.data[i * 3 + 2]!) > 200) white++;
    expect(white).toBeGreaterThan(1000);

    // Progress: rendering first (up to 0.1), then encoding up to 1, never going back.
    const stages = ctx.reports.map((r) => r.stage);
    expect(stages.indexOf('encoding')).toBeGreaterThan(stages.lastIndexOf('rendering'));
    const fractions = ctx.reports.map((r) => r.fraction);
    expect(fractions).toEqual([...fractions].sort((a, b) => a - b));
    expect(fractions.at(-1)).toBeCloseTo(1, 2);
    // The silent track is there and silent.
    expect(await meanVolume(result.path, 0, 3)).toBeLessThan(-80);
  });

  it('horizontal with pictures and every transition: cut, crossfade, fade; EXIF orientation applied', async () => {
    const ctx = await makeCtx('horizontal');
    const result = await provider.generate(ctx, {
      template: 'caption',
      background: '#000000',
      slides: [
        { image: { id: rotated }, duration: 1, transition: 'cut' },
        { image: { id: green }, duration: 1, transition: 'crossfade' },
        { image: { id: blue }, duration: 1, transition: 'fade' },
        { image: { id: red, path: 'https://media.example/red.png' }, caption: 'the end', duration: 1 },
      ],
    });
    if (result.kind !== 'file') throw new Error('expected a file');
    const info = await inspect(result.path);
    expect({ width: info.width, height: info.height }).toEqual({ width: 1920, height: 1080 });
    expect(info.duration).toBeGreaterThanOrEqual(3.9);
    expect(info.duration).toBeLessThanOrEqual(4.1);

    // Slide 0 upright: red on top, yellow below (sideways it would be red on the left, yellow on the right).
    expect(near(await pixelAt(result.path, 0.5, 100, 100), [255, 0, 0], 40)).toBe(true);
    expect(near(await pixelAt(result.path, 0.5, 100, 1000), [255, 255, 0], 40)).toBe(true);
    // cut: fully green at once
    expect(near(await pixelAt(result.path, 1.05, 100, 100), [0, 255, 0], 40)).toBe(true);
    // crossfade over slide 1's last 0.5 s: green and blue mixed half way through
    const mixed = await pixelAt(result.path, 1.75, 100, 100);
    expect(mixed[1]).toBeGreaterThan(60);
    expect(mixed[2]).toBeGreaterThan(60);
    expect(near(await pixelAt(result.path, 2.5, 100, 100), [0, 0, 255], 40)).toBe(true);
    // fade through black: dark at the end of slide 2 and the start of slide 3, red after
    expect(Math.max(...(await pixelAt(result.path, 2.97, 100, 100)))).toBeLessThan(70);
    expect(Math.max(...(await pixelAt(result.path, 3.02, 100, 100)))).toBeLessThan(90);
    expect(near(await pixelAt(result.path, 3.6, 100, 100), [255, 0, 0], 40)).toBe(true);
  });

  it('music shorter than the video is looped, music longer is cut: AAC present, duration = the slides', async () => {
    const looped = await provider.generate(await makeCtx('vertical'), {
      slides: [{ text: 'a', duration: 2.5 }, { text: 'b', duration: 2.5 }],
      audio: { id: shortMusic, volume: 1 },
    });
    if (looped.kind !== 'file') throw new Error('expected a file');
    const a = await inspect(looped.path);
    expect(a.codecs).toMatch(/mp4a\.40\.2/);
    expect(a.duration).toBeGreaterThanOrEqual(4.9);
    expect(a.duration).toBeLessThanOrEqual(5.1);
    // 3.3–3.8 s is past the end of the 3 s tone and before the 1 s fade out: heard only if looped.
    expect(await meanVolume(looped.path, 3.3, 0.5)).toBeGreaterThan(-30);

    const cut = await provider.generate(await makeCtx('horizontal'), {
      slides: [{ text: 'short', duration: 2 }],
      audio: { id: longMusic },
    });
    if (cut.kind !== 'file') throw new Error('expected a file');
    const b = await inspect(cut.path);
    expect(b.codecs).toMatch(/mp4a\.40\.2/);
    expect(b.duration).toBeGreaterThanOrEqual(1.9);
    expect(b.duration).toBeLessThanOrEqual(2.1);
  });

  it('an abort while ffmpeg runs kills it (no process left) and rejects with the reason', async () => {
    const controller = new AbortController();
    const reason = new Error('time limit reached');
    let ffmpegPid: number | undefined;
    const before = new Set(childrenNamed('ffmpeg'));
    const ctx = await makeCtx('horizontal', {
      signal: controller.signal,
      onProgress(fraction, stage) {
        // the first report from ffmpeg itself (0.1 is announced just before it starts)
        if (stage !== 'encoding' || fraction <= 0.1 || controller.signal.aborted) return;
        ffmpegPid = childrenNamed('ffmpeg').find((pid) => !before.has(pid));
        controller.abort(reason);
      },
    });
    await expect(provider.generate(ctx, { slides: [{ text: 'long', duration: 30 }] })).rejects.toBe(reason);
    expect(ffmpegPid).toBeTypeOf('number');
    // reaped, not a zombie: the /proc entry is gone
    expect(existsSync(`/proc/${ffmpegPid}`)).toBe(false);
    expect(childrenNamed('ffmpeg').filter((pid) => !before.has(pid))).toEqual([]);
  });

  it('refuses an unreadable picture naming its field, and reports a failed ffmpeg with its words', async () => {
    const bad = provider.generate(await makeCtx('vertical'), { slides: [{ text: 'ok' }, { image: { id: notAPicture } }] });
    await expect(bad).rejects.toBeInstanceOf(VideoProviderError);
    await expect(bad).rejects.toMatchObject({ kind: 'invalid_params', field: 'slides.1.image.id' });

    const wrongKind = provider.generate(await makeCtx('vertical'), { slides: [{ text: 'ok' }], audio: { id: red } });
    await expect(wrongKind).rejects.toMatchObject({ kind: 'invalid_params', field: 'audio.id' });

    const failed = provider.generate(await makeCtx('vertical'), { slides: [{ text: 'ok', duration: 1 }], audio: { id: brokenAudio } });
    await expect(failed).rejects.toMatchObject({ kind: 'failed' });
    await expect(failed).rejects.toThrow(/ffmpeg failed \(exit code \d+\): .*broken\.m4a/s);

    const missing = createLocalSlidesProvider({ ffmpegPath: join(root, 'no-ffmpeg-here') }).generate(await makeCtx('vertical'), { slides: [{ text: 'x', duration: 1 }] });
    await expect(missing).rejects.toMatchObject({ kind: 'unavailable' });
  });

  it('invalid params passed to generate are refused naming the field', async () => {
    await expect(provider.generate(await makeCtx('vertical'), { slides: [{ caption: 'no text, no image' }] })).rejects.toMatchObject({
      kind: 'invalid_params',
      field: 'slides.0.text',
    });
  });
});

/** pids of this process's children whose command is `name` (Linux /proc). */
function childrenNamed(name: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // pid (comm) state ppid …: comm may hold spaces, so split after the last ')'
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (comm === name && ppid === process.pid) pids.push(Number(entry));
  }
  return pids;
}

describe('slides provider: params and functions', { timeout: 30_000 }, () => {
  const provider = createLocalSlidesProvider();
  const schema = provider.metadata.customParams;
  const pathOf = (value: unknown) => {
    const r = schema.safeParse(value);
    return r.success ? null : r.error.issues.map((i) => i.path.join('.'));
  };

  it('metadata as the contract wants it', () => {
    const { identifier, name, runsOn, outputs, creditCost, functions } = provider.metadata;
    expect({ identifier, name, runsOn, outputs, creditCost }).toEqual({ identifier: 'slides', name: 'Slides', runsOn: 'local', outputs: ['vertical', 'horizontal'], creditCost: 1 });
    expect(Object.keys(functions).sort()).toEqual(['listFonts', 'listTemplates', 'preview']);
    // published as JSON Schema for clients' forms: every field described
    const json = z.toJSONSchema(schema) as { properties: Record<string, { description?: string }> };
    for (const [key, prop] of Object.entries(json.properties)) expect(prop.description, key).toBeTruthy();
  });

  it('defaults: title template, Inter Bold, dark background, white text, 4 s fades, volume 0.8', () => {
    const parsed = schema.parse({ slides: [{ text: 'x' }], audio: { id: shortMusic } });
    expect(parsed).toEqual({
      template: 'title',
      font: 'inter-bold',
      background: '#111827',
      textColor: '#ffffff',
      slides: [{ text: 'x', duration: 4, transition: 'fade' }],
      audio: { id: shortMusic, volume: 0.8 },
    });
  });

  it('bad params: the issue path names the field', () => {
    expect(pathOf({ slides: [] })).toEqual(['slides']);
    expect(pathOf({})).toEqual(['slides']);
    expect(pathOf({ slides: [{ text: 'a' }, { caption: 'neither text nor image' }] })).toEqual(['slides.1.text']);
    expect(pathOf({ slides: [{ text: '   ' }] })).toEqual(['slides.0.text']);
    expect(pathOf({ slides: [{ text: 'a', duration: 0 }] })).toEqual(['slides.0.duration']);
    expect(pathOf({ slides: [{ text: 'a', duration: 31 }] })).toEqual(['slides.0.duration']);
    expect(pathOf({ slides: [{ text: 'a', transition: 'wipe' }] })).toEqual(['slides.0.transition']);
    expect(pathOf({ background: 'red', slides: [{ text: 'a' }] })).toEqual(['background']);
    expect(pathOf({ textColor: '#fff', slides: [{ text: 'a' }] })).toEqual(['textColor']);
    expect(pathOf({ slides: [{ text: 'x'.repeat(301) }] })).toEqual(['slides.0.text']);
    expect(pathOf({ slides: [{ text: 'a', caption: 'x'.repeat(201) }] })).toEqual(['slides.0.caption']);
    expect(pathOf({ slides: [{ image: { id: 'not-a-uuid' } }] })).toEqual(['slides.0.image.id']);
    expect(pathOf({ slides: [{ text: 'a' }], audio: { id: shortMusic, volume: 2 } })).toEqual(['audio.volume']);
    expect(pathOf({ slides: Array.from({ length: 31 }, () => ({ text: 'a', duration: 1 })) })).toEqual(['slides']);
    // 7 × 30 s = 210 s, over the 180 s of a video
    expect(pathOf({ slides: Array.from({ length: 7 }, () => ({ text: 'a', duration: 30 })) })).toEqual(['slides']);
    expect(pathOf({ slides: [{ text: 'a' }], template: 'poster' })).toEqual(['template']);
    // strict objects: an unknown field is refused, not ignored
    expect(schema.safeParse({ slides: [{ text: 'a', colour: 'x' }] }).success).toBe(false);
  });

  it('mediaReferences lists every picture and the music with the kinds they must be', () => {
    const params = schema.parse({ slides: [{ text: 'a' }, { image: { id: red } }, { image: { id: green } }], audio: { id: shortMusic } });
    expect(provider.metadata.mediaReferences(params)).toEqual([
      { field: 'slides.1.image.id', id: red, accept: ['image'] },
      { field: 'slides.2.image.id', id: green, accept: ['image'] },
      { field: 'audio.id', id: shortMusic, accept: ['audio'] },
    ]);
  });

  it('listTemplates and listFonts', async () => {
    const ctx = await makeCtx('vertical');
    const { templates } = (await provider.callFunction('listTemplates', ctx, {})) as { templates: { id: string; name: string; description: string }[] };
    expect(templates.map((t) => t.id)).toEqual(['title', 'caption', 'split']);
    for (const t of templates) expect(t.description.length).toBeGreaterThan(20);
    const { fonts } = (await provider.callFunction('listFonts', ctx, {})) as { fonts: { id: string; family: string; weight: number; file: string; licence: string }[] };
    expect(fonts).toEqual([
      { id: 'inter', family: 'Inter', weight: 400, file: 'Inter_400Regular.ttf', licence: 'OFL-1.1' },
      { id: 'inter-bold', family: 'Inter', weight: 700, file: 'Inter_700Bold.ttf', licence: 'OFL-1.1' },
      { id: 'inter-black', family: 'Inter', weight: 900, file: 'Inter_900Black.ttf', licence: 'OFL-1.1' },
    ]);
    await expect(provider.callFunction('listFonts', ctx, { extra: 1 })).rejects.toMatchObject({ kind: 'invalid_params' });
    await expect(provider.callFunction('render', ctx, {})).rejects.toMatchObject({ kind: 'invalid_params' });
  });

  it('preview: a PNG of the first slide at the output size, text drawn over the background', async () => {
    const ctx = await makeCtx('vertical');
    const answer = (await provider.callFunction('preview', ctx, {
      customParams: { background: '#102030', textColor: '#ffffff', font: 'inter-black', slides: [{ text: 'Hello <world> & you' }, { text: 'not drawn' }] },
    })) as { mimeType: string; width: number; height: number; data: string };
    expect(answer).toMatchObject({ mimeType: 'image/png', width: 1080, height: 1920 });
    const png = Buffer.from(answer.data, 'base64');
    const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
    expect({ width: info.width, height: info.height, channels: info.channels }).toEqual({ width: 1080, height: 1920, channels: 3 });
    expect([data[0], data[1], data[2]]).toEqual([0x10, 0x20, 0x30]);
    // Text pixels: near-white pixels exist, all of them in the middle of the frame.
    let white = 0;
    let outside = 0;
    for (let i = 0; i < info.width * info.height; i++) {
      if (data[i * 3]! > 200 && data[i * 3 + 1]! > 200 && data[i * 3 + 2]! > 200) {
        white++;
        const y = Math.floor(i / info.width);
        if (y < 600 || y > 1320) outside++;
      }
    }
    expect(white).toBeGreaterThan(2000);
    expect(outside).toBe(0);

    const horizontal = (await provider.callFunction('preview', ctx, {
      output: 'horizontal',
      customParams: { template: 'split', slides: [{ image: { id: rotated }, text: 'Split' }] },
    })) as { width: number; height: number; data: string };
    const meta = await sharp(Buffer.from(horizontal.data, 'base64')).metadata();
    expect({ width: meta.width, height: meta.height, format: meta.format }).toEqual({ width: 1920, height: 1080, format: 'png' });

    await expect(provider.callFunction('preview', ctx, { customParams: { slides: [{ image: { id: notAPicture } }] } })).rejects.toMatchObject({
      kind: 'invalid_params',
      field: 'customParams.slides.0.image.id',
    });
    await expect(provider.callFunction('preview', ctx, { output: 'square', customParams: { slides: [{ text: 'a' }] } })).rejects.toMatchObject({
      kind: 'invalid_params',
      field: 'output',
    });
  });
});

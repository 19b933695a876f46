/**
 * Benchmark of the local slides video provider, run by hand (never in CI):
 *   node --import tsx bench/video-encode.ts        # BENCH_THREADS (default: the provider's), BENCH_RUNS (1)
 *
 * A 30-second vertical video (1080×1920) of 6 slides of 5 s each: a picture (a 2400×1600 JPEG
 * with texture), text and a caption on every slide (caption template), fades between them, and
 * background music (a 20 s AAC tone, so it is looped). Made through
 * `createLocalSlidesProvider().generate(...)` with a hand-built context, as the video worker would.
 * Prints, per run:
 *   - wall time of `generate`, split into drawing the slides and the ffmpeg run;
 *   - the ffmpeg child's peak RSS: VmHWM from /proc/<pid>/status, polled every 100 ms (a
 *     high-water mark, so the last reading before it exits is its peak), and its CPU seconds at
 *     that reading;
 *   - the Node process's peak RSS (getrusage maxrss: the whole process's life, sharp included);
 *   - the size of the MP4.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { createLocalSlidesProvider } from '../src/core/video-providers/local/index.js';
import { VIDEO_FORMATS, type VideoGenerateContext, type VideoMediaFile } from '../src/core/video-providers/provider.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 1);
const THREADS = process.env.BENCH_THREADS ? Number(process.env.BENCH_THREADS) : undefined;
const FFMPEG = (createRequire(import.meta.url)('@ffmpeg-installer/ffmpeg') as { path: string }).path;
const run = promisify(execFile);
const round = (n: number, d = 1) => Math.round(n * 10 ** d) / 10 ** d;
const CLOCK_TICKS = 100; // USER_HZ on Linux

/** pid of this process's ffmpeg child, if one runs */
function ffmpegChild(): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (comm === 'ffmpeg' && ppid === process.pid) return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

/** VmHWM (kB) and user+system CPU seconds of `pid`, or undefined once it is gone */
function sample(pid: number): { hwmKb: number; cpuSeconds: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // after "pid (comm) ": state is field 0, utime 11, stime 12
    return { hwmKb: Number(/VmHWM:\s+(\d+) kB/.exec(status)![1]), cpuSeconds: (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS };
  } catch {
    return undefined;
  }
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'tidings-video-bench-'));
  try {
    const library = new Map<string, VideoMediaFile>();
    const add = (type: VideoMediaFile['type'], path: string) => {
      const id = randomUUID();
      library.set(id, { id, type, mimeType: type === 'image' ? 'image/jpeg' : 'audio/mp4', path, url: '', width: null, height: null });
      return id;
    };
    const colours = ['#c0392b', '#2980b9', '#27ae60', '#8e44ad', '#f39c12', '#16a085'];
    const pictures: string[] = [];
    for (const [i, colour] of colours.entries()) {
      const path = join(dir, `photo-${i}.jpg`);
      // a colour with noise on top: texture like a photo's, not a flat area the encoder skips
      const noise = await sharp({ create: { width: 2400, height: 1600, channels: 3, background: '#000000', noise: { type: 'gaussian', mean: 128, sigma: 40 } } }).png().toBuffer();
      await sharp({ create: { width: 2400, height: 1600, channels: 3, background: colour } })
        .composite([{ input: noise, blend: 'soft-light' }])
        .jpeg({ quality: 85 })
        .toFile(path);
      pictures.push(add('image', path));
    }
    const music = join(dir, 'music.m4a');
    await run(FFMPEG, ['-v', 'error', '-f', 'lavfi', '-i', 'sine=f=330:d=20', '-c:a', 'aac', '-b:a', '128k', music]);
    const musicId = add('audio', music);

    const params = {
      template: 'caption',
      audio: { id: musicId, volume: 0.8 },
      slides: pictures.map((id, i) => ({
        image: { id },
        text: `Slide ${i + 1}: what we shipped this week`,
        caption: 'Captions set in Inter, drawn with sharp, encoded by the bundled ffmpeg',
        duration: 5,
        transition: 'fade',
      })),
    };
    const provider = createLocalSlidesProvider(THREADS ? { threads: THREADS } : {});

    for (let r = 1; r <= RUNS; r++) {
      const workDir = mkdtempSync(join(dir, 'job-'));
      let encodingAt: number | undefined;
      const ctx: VideoGenerateContext = {
        organizationId: randomUUID(),
        workDir,
        signal: new AbortController().signal,
        media: (id) => Promise.resolve(library.get(id)!),
        http: {} as VideoGenerateContext['http'],
        jobId: randomUUID(),
        attempt: 1,
        output: 'vertical',
        format: VIDEO_FORMATS.vertical,
        progress: (_fraction, stage) => {
          if (stage === 'encoding') encodingAt ??= performance.now();
        },
        saved: null,
        checkpoint: () => Promise.resolve(),
      };

      let pid: number | undefined;
      let last: { hwmKb: number; cpuSeconds: number } | undefined;
      const poll = setInterval(() => {
        pid ??= ffmpegChild();
        if (pid === undefined) return;
        last = sample(pid) ?? last;
      }, 100);

      const started = performance.now();
      const result = await provider.generate(ctx, params);
      const ended = performance.now();
      clearInterval(poll);
      if (result.kind !== 'file') throw new Error('expected a file');

      const line = {
        run: r,
        video: '30 s, 1080x1920, 6 slides (picture + text + caption, caption template, fades), looped AAC music',
        threads: THREADS ?? 'default (availableParallelism)',
        cpus: cpus().length,
        wallSeconds: round((ended - started) / 1000, 2),
        drawSlidesSeconds: round(((encodingAt ?? ended) - started) / 1000, 2),
        ffmpegSeconds: round((ended - (encodingAt ?? started)) / 1000, 2),
        ffmpegPeakRssMb: last ? round(last.hwmKb / 1024) : null,
        ffmpegCpuSeconds: last ? round(last.cpuSeconds, 2) : null,
        nodePeakRssMb: round(process.resourceUsage().maxRSS / 1024),
        outputBytes: statSync(result.path).size,
        outputMiB: round(statSync(result.path).size / 1024 / 1024, 2),
      };
      console.log(JSON.stringify(line));
      rmSync(workDir, { recursive: true, force: true });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();

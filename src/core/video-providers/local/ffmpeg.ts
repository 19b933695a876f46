import { spawn } from 'node:child_process';
import { VideoProviderError } from '../provider.js';

/**
 * The one ffmpeg run of a slides video: the filter graph (built here, from frame counts, so the
 * total duration is exact) and the child process (progress, abort, bounded stderr).
 *
 * The static ffmpeg of `@ffmpeg-installer/ffmpeg` is 4.1: no `xfade`, so transitions are made
 * with `fade` (through black) and `overlay` of the next slide fading in (crossfade). Each slide is
 * ONE decoded picture repeated by `tpad` (clones share the frame's buffer), not a PNG decoded 30
 * times a second.
 */

export const FPS = 30;
/** frames of a fade to black, and again of the fade in from black (0.3 s each) */
const FADE_FRAMES = 9;
/** frames of a crossfade (0.5 s), at the end of the slide it leaves */
const CROSSFADE_FRAMES = 15;

export type Transition = 'cut' | 'fade' | 'crossfade';

export interface EncodePlan {
  /** `transition` leads into the next slide (ignored on the last one) */
  slides: { png: string; frames: number; transition: Transition }[];
  audio?: { path: string; volume: number } | undefined;
  output: string;
  threads: number;
}

/**
 * Frames of each slide, rounded on the running total so the video lasts the sum of the durations
 * to the frame (not one rounding error per slide). A slide of 1 s or more gets 30 frames or more,
 * room for a fade in and a crossfade out.
 */
export function slideFrames(durations: readonly number[]): number[] {
  let elapsed = 0;
  let done = 0;
  return durations.map((d) => {
    elapsed += d;
    const upTo = Math.round(elapsed * FPS);
    const frames = upTo - done;
    done = upTo;
    return frames;
  });
}

// RGB → BT.709 limited range, the matrix the output is tagged with (players assume it for HD).
const TO_YUV = 'scale=out_color_matrix=bt709:out_range=tv';

/** `file:` so that no path is read as a protocol (`http:`…) or, for pictures, as a sequence pattern. */
const file = (path: string) => `file:${path}`;

export function buildFfmpegArgs(plan: EncodePlan): string[] {
  const inputs: string[] = [];
  const graph: string[] = [];
  let nextInput = 0;
  const addPicture = (png: string) => {
    inputs.push('-f', 'image2', '-pattern_type', 'none', '-framerate', String(FPS), '-i', file(png));
    return nextInput++;
  };

  const segments: string[] = [];
  plan.slides.forEach((slide, i) => {
    const last = i === plan.slides.length - 1;
    const out = last ? 'cut' : slide.transition;
    const fadedIn = i > 0 && plan.slides[i - 1]!.transition === 'fade';
    const n = slide.frames;
    const chain = [TO_YUV, 'format=yuv420p', 'setsar=1', `tpad=stop=${n - 1}:stop_mode=clone`];
    if (fadedIn) chain.push(`fade=t=in:s=0:n=${FADE_FRAMES}`);
    if (out === 'fade') chain.push(`fade=t=out:s=${n - FADE_FRAMES}:n=${FADE_FRAMES}`);
    const own = addPicture(slide.png);
    if (out === 'crossfade') {
      // The next slide, fading in over this one's last frames (alpha), placed by timestamp.
      const next = addPicture(plan.slides[i + 1]!.png);
      graph.push(`[${own}:v]${chain.join(',')}[b${i}]`);
      graph.push(
        `[${next}:v]${TO_YUV},format=yuva420p,setsar=1,tpad=stop=${CROSSFADE_FRAMES - 1}:stop_mode=clone,` +
          `fade=t=in:s=0:n=${CROSSFADE_FRAMES}:alpha=1,setpts=PTS-STARTPTS+${n - CROSSFADE_FRAMES}/(${FPS}*TB)[x${i}]`,
      );
      graph.push(`[b${i}][x${i}]overlay=eof_action=pass:format=yuv420,format=yuv420p[v${i}]`);
    } else {
      graph.push(`[${own}:v]${chain.join(',')}[v${i}]`);
    }
    segments.push(`[v${i}]`);
  });
  graph.push(`${segments.join('')}concat=n=${segments.length}:v=1:a=0[vout]`);

  const totalFrames = plan.slides.reduce((sum, s) => sum + s.frames, 0);
  const total = (totalFrames / FPS).toFixed(6);
  const audioFormat = 'aformat=sample_fmts=fltp:sample_rates=48000:channel_layouts=stereo';
  if (plan.audio) {
    // Looped by the demuxer (no copy of the music in memory); timestamps renumbered from the
    // samples so the cut is exact whatever the loop seams look like.
    inputs.push('-stream_loop', '-1', '-i', file(plan.audio.path));
    const fadeStart = Math.max(0, totalFrames / FPS - 1).toFixed(6);
    graph.push(
      `[${nextInput}:a]${audioFormat},asetpts=N/SR/TB,atrim=duration=${total},volume=${plan.audio.volume},afade=t=out:st=${fadeStart}:d=1[aout]`,
    );
  } else {
    graph.push(`anullsrc=r=48000:cl=stereo,${audioFormat},atrim=duration=${total}[aout]`);
  }

  const threads = String(plan.threads);
  return [
    ...['-hide_banner', '-nostdin', '-loglevel', 'warning', '-filter_complex_threads', threads],
    ...inputs,
    ...['-filter_complex', graph.join(';'), '-map', '[vout]', '-map', '[aout]'],
    ...['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '23', '-profile:v', 'high', '-pix_fmt', 'yuv420p', '-r', String(FPS)],
    ...['-colorspace', 'bt709', '-color_primaries', 'bt709', '-color_trc', 'bt709', '-color_range', 'tv', '-threads', threads],
    ...['-c:a', 'aac', '-b:a', '128k', '-ar', '48000', '-ac', '2'],
    ...['-movflags', '+faststart', '-progress', 'pipe:1', '-nostats', '-y', file(plan.output)],
  ];
}

/** What an aborted signal was aborted with (an Error: the time limit's, shutdown's), to throw. */
export function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new DOMException('The operation was aborted', 'AbortError');
}

/** How much of ffmpeg's stderr is kept: its last lines say why it failed. */
const STDERR_KEEP = 16 * 1024;
const STDERR_LINES = 15;
/** A progress line is short; anything longer without a newline is not one. */
const STDOUT_LINE_MAX = 4096;

export interface RunOptions {
  signal: AbortSignal;
  /** output time reached, in seconds, at each progress report (every 0.5 s) */
  onProgress?: (seconds: number) => void;
}

/**
 * Runs ffmpeg to the end. Rejects with `VideoProviderError('failed')` carrying the last lines of
 * stderr when it exits non-zero, `'unavailable'` when it cannot be started, and with the signal's
 * reason when `signal` aborts: the process is killed (SIGKILL) and waited for first, so no
 * process outlives the call.
 */
export function runFfmpeg(ffmpegPath: string, args: string[], opts: RunOptions): Promise<void> {
  const { signal } = opts;
  if (signal.aborted) return Promise.reject(abortReason(signal));
  return new Promise<void>((resolve, reject) => {
    const child = spawn(ffmpegPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let pending = '';
    let settled = false;

    const onAbort = () => child.kill('SIGKILL');
    signal.addEventListener('abort', onAbort, { once: true });
    const settle = (f: () => void) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      f();
    };

    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk;
      if (stderr.length > STDERR_KEEP * 2) stderr = stderr.slice(-STDERR_KEEP);
    });
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop()!.slice(-STDOUT_LINE_MAX);
      for (const line of lines) {
        // out_time_ms is in microseconds despite its name (out_time_us, same value, is newer)
        const m = /^out_time_ms=(\d+)/.exec(line.trim());
        if (m) opts.onProgress?.(Number(m[1]) / 1e6);
      }
    });

    // Not started at all (no such file, not executable): there is no process to wait for.
    child.once('error', (e) => {
      if (child.pid === undefined) {
        settle(() => reject(signal.aborted ? abortReason(signal) : new VideoProviderError(`ffmpeg could not be started (${e.message})`, 'unavailable')));
      }
    });
    // 'close' comes after the exit and after stdout/stderr are drained: nothing is left running.
    child.once('close', (code, sig) => {
      settle(() => {
        if (signal.aborted) return reject(abortReason(signal));
        if (code === 0) return resolve();
        const tail = stderr.trimEnd().split('\n').slice(-STDERR_LINES).join('\n');
        reject(new VideoProviderError(`ffmpeg failed (${sig ? `signal ${sig}` : `exit code ${code}`}): ${tail || 'no message'}`, 'failed'));
      });
    });
  });
}

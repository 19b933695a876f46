import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import type { z } from 'zod';
import {
  VIDEO_FORMATS,
  VIDEO_OUTPUTS,
  VideoProviderError,
  type MediaReference,
  type VideoFunctionContext,
  type VideoGenerateContext,
  type VideoMediaFile,
  type VideoProvider,
  type VideoProviderMetadata,
  type VideoResult,
} from '../provider.js';
import { abortReason, buildFfmpegArgs, FPS, runFfmpeg, slideFrames } from './ffmpeg.js';
import { renderSlide, type SlideDrawing } from './render.js';
import { EmptyParamsSchema, FONT_LICENCE, FONTS, PreviewParamsSchema, SlidesParamsSchema, TEMPLATES, type Slide, type SlidesParams } from './schemas.js';

/**
 * The provider that needs no outside service (issue 19): slides (text, pictures from the media
 * library, captions in the shipped Inter font) drawn with sharp, then ONE run of the static ffmpeg
 * shipped in `@ffmpeg-installer/ffmpeg` makes an MP4 (H.264 high + AAC, faststart) lasting exactly
 * the sum of the slides' durations.
 */

export interface LocalSlidesOptions {
  /** default: the binary of `@ffmpeg-installer/ffmpeg` */
  ffmpegPath?: string;
  /** ffmpeg's encoder and filter threads; default: the CPUs this process may use */
  threads?: number;
}

const require = createRequire(import.meta.url);

/**
 * Resolved on first use, not at startup: a machine the package has no binary for still starts,
 * and only generation reports the provider unavailable.
 */
function bundledFfmpeg(): string {
  try {
    return (require('@ffmpeg-installer/ffmpeg') as { path: string }).path;
  } catch (e) {
    throw new VideoProviderError(`No ffmpeg binary for this machine (${e instanceof Error ? e.message : String(e)})`, 'unavailable');
  }
}

/** zod's first issue as a provider error naming the field (`slides.1.text`). */
function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = issue.path.join('.');
  throw new VideoProviderError(field ? `${field}: ${issue.message}` : issue.message, 'invalid_params', field || undefined);
}

/** A media item of the expected kind, or an error naming the field that refers to it. */
async function mediaOf(ctx: VideoFunctionContext, id: string, kind: 'image' | 'audio', field: string): Promise<VideoMediaFile> {
  const item = await ctx.media(id);
  if (item.type !== kind) {
    throw new VideoProviderError(`The media item ${id} is ${item.type === 'image' ? 'a picture' : `a ${item.type}`}, not ${kind === 'image' ? 'a picture' : 'an audio file'}`, 'invalid_params', field);
  }
  return item;
}

function drawingOf(params: SlidesParams, slide: Slide, index: number, picturePath: string | undefined): SlideDrawing {
  return {
    template: params.template,
    font: params.font,
    background: params.background,
    textColor: params.textColor,
    text: slide.text,
    caption: slide.caption,
    picture: picturePath ? { path: picturePath, field: `slides.${index}.image.id` } : undefined,
    field: `slides.${index}`,
  };
}

export function createLocalSlidesProvider(opts: LocalSlidesOptions = {}): VideoProvider {
  let ffmpegPath = opts.ffmpegPath;
  const threads = opts.threads ?? availableParallelism();

  const metadata: VideoProviderMetadata = {
    identifier: 'slides',
    name: 'Slides',
    description:
      'Turns slides (text, pictures from the media library, captions) into an MP4 with transitions and optional background music, inside this deployment.',
    runsOn: 'local',
    outputs: VIDEO_OUTPUTS,
    creditCost: 1,
    customParams: SlidesParamsSchema,
    mediaReferences(params: unknown): MediaReference[] {
      const parsed = SlidesParamsSchema.safeParse(params);
      if (!parsed.success) return [];
      const refs: MediaReference[] = [];
      parsed.data.slides.forEach((s, i) => {
        if (s.image) refs.push({ field: `slides.${i}.image.id`, id: s.image.id, accept: ['image'] });
      });
      if (parsed.data.audio) refs.push({ field: 'audio.id', id: parsed.data.audio.id, accept: ['audio'] });
      return refs;
    },
    functions: {
      listTemplates: { description: 'The slide layouts (the `template` of customParams)', params: EmptyParamsSchema },
      listFonts: { description: 'The fonts shipped for the text (the `font` of customParams)', params: EmptyParamsSchema },
      preview: { description: 'A PNG of the first slide, exactly as the video shows it', params: PreviewParamsSchema },
    },
  };

  async function generate(ctx: VideoGenerateContext, raw: unknown): Promise<VideoResult> {
    const params = parseOrThrow(SlidesParamsSchema, raw);
    ffmpegPath ??= bundledFfmpeg();
    const frames = slideFrames(params.slides.map((s) => s.duration));
    const totalSeconds = frames.reduce((a, b) => a + b, 0) / FPS;

    // The first 10 % of the progress: drawing the slides (one picture may serve several slides).
    const pictures = new Map<string, Promise<VideoMediaFile>>();
    const slides = [];
    for (const [i, slide] of params.slides.entries()) {
      if (ctx.signal.aborted) throw abortReason(ctx.signal);
      let picture: VideoMediaFile | undefined;
      if (slide.image) {
        const { id } = slide.image;
        if (!pictures.has(id)) pictures.set(id, mediaOf(ctx, id, 'image', `slides.${i}.image.id`));
        picture = await pictures.get(id)!;
      }
      // Level 1: ffmpeg decodes each slide once; a smaller file is not worth the time here.
      const png = await renderSlide(drawingOf(params, slide, i, picture?.path), ctx.format, { compressionLevel: 1 });
      const path = join(ctx.workDir, `slide-${String(i).padStart(2, '0')}.png`);
      await writeFile(path, png);
      slides.push({ png: path, frames: frames[i]!, transition: slide.transition });
      ctx.progress((0.1 * (i + 1)) / params.slides.length, 'rendering');
    }
    const audio = params.audio ? { path: (await mediaOf(ctx, params.audio.id, 'audio', 'audio.id')).path, volume: params.audio.volume } : undefined;
    if (ctx.signal.aborted) throw abortReason(ctx.signal);

    const output = join(ctx.workDir, 'video.mp4');
    const args = buildFfmpegArgs({ slides, audio, output, threads });
    ctx.progress(0.1, 'encoding');
    await runFfmpeg(ffmpegPath, args, {
      signal: ctx.signal,
      onProgress: (seconds) => ctx.progress(0.1 + 0.9 * Math.min(1, seconds / totalSeconds), 'encoding'),
    });
    return { kind: 'file', path: output, filename: `slides-${ctx.output}.mp4` };
  }

  async function preview(ctx: VideoFunctionContext, raw: unknown) {
    const { output, customParams } = parseOrThrow(PreviewParamsSchema, raw);
    const format = VIDEO_FORMATS[output];
    const first = customParams.slides[0]!;
    const picture = first.image ? await mediaOf(ctx, first.image.id, 'image', 'customParams.slides.0.image.id') : undefined;
    try {
      const png = await renderSlide(drawingOf(customParams, first, 0, picture?.path), format);
      return { mimeType: 'image/png', width: format.width, height: format.height, data: png.toString('base64') };
    } catch (e) {
      // the fields of the drawing are those of customParams; the function's params hold it
      if (e instanceof VideoProviderError && e.field) throw new VideoProviderError(e.message, e.kind, `customParams.${e.field}`);
      throw e;
    }
  }

  async function callFunction(name: string, ctx: VideoFunctionContext, params: unknown): Promise<unknown> {
    switch (name) {
      case 'listTemplates':
        parseOrThrow(EmptyParamsSchema, params);
        return { templates: TEMPLATES.map(({ id, name, description }) => ({ id, name, description })) };
      case 'listFonts':
        parseOrThrow(EmptyParamsSchema, params);
        return { fonts: FONTS.map(({ id, family, weight, file }) => ({ id, family, weight, file, licence: FONT_LICENCE })) };
      case 'preview':
        return preview(ctx, params);
      default:
        throw new VideoProviderError(`The slides provider has no function "${name}"`, 'invalid_params');
    }
  }

  return { metadata, generate, callFunction };
}

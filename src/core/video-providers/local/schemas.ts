import { createRequire } from 'node:module';
import { z } from 'zod';
import { VIDEO_OUTPUTS, type VideoOutput } from '../provider.js';

/**
 * The `customParams` of the local slides provider and of its functions, its templates and its fonts.
 * Everything a client needs to build the form is in the schema (descriptions, defaults, limits); the
 * rules JSON Schema cannot say (text or picture, total duration) are refinements naming the field.
 */

export const MAX_SLIDES = 30;
export const MAX_TOTAL_SECONDS = 180;

export const TEMPLATES = [
  { id: 'title', name: 'Title', description: 'Big centred text over the picture (dimmed, filling the frame) or over the background colour; the caption in smaller type under it.' },
  { id: 'caption', name: 'Caption', description: 'The picture full-bleed (cropped to fill the frame), with a band at the bottom holding the text and the caption.' },
  { id: 'split', name: 'Split', description: 'The picture in the top half (whole, on the background colour), the text and the caption in the bottom half.' },
] as const;

export type TemplateId = (typeof TEMPLATES)[number]['id'];

const require = createRequire(import.meta.url);

/** The fonts shipped in `@expo-google-fonts/inter` (SIL Open Font License 1.1); `pango` is how Pango names the face. */
export const FONTS = [
  { id: 'inter', family: 'Inter', weight: 400, file: 'Inter_400Regular.ttf', dir: '400Regular', pango: 'Inter' },
  { id: 'inter-bold', family: 'Inter', weight: 700, file: 'Inter_700Bold.ttf', dir: '700Bold', pango: 'Inter Bold' },
  { id: 'inter-black', family: 'Inter', weight: 900, file: 'Inter_900Black.ttf', dir: '900Black', pango: 'Inter Black' },
] as const;

export type FontId = (typeof FONTS)[number]['id'];
export const FONT_LICENCE = 'OFL-1.1';

/** The absolute path of a shipped font file, resolved through the package (wherever npm put it). */
export function fontFile(id: FontId): { path: string; pango: string } {
  const font = FONTS.find((f) => f.id === id)!;
  return { path: require.resolve(`@expo-google-fonts/inter/${font.dir}/${font.file}`), pango: font.pango };
}

const ColourSchema = z.string().regex(/^#[0-9a-fA-F]{6}$/, 'A colour is written #rrggbb, e.g. "#1f2937"');

const MediaItemSchema = z.strictObject({
  id: z.uuid().describe('The id of a media item of the organisation (from the media library)'),
  path: z.string().min(1).max(2048).optional().describe("The item's URL as the media library gives it (ignored: the id is what counts)"),
});

export const SlideSchema = z
  .strictObject({
    text: z.string().trim().max(300).optional().describe('The main text of the slide (at most 300 characters; line breaks kept)'),
    caption: z.string().trim().max(200).optional().describe('Smaller text under the main text, or in the bottom band of the caption template (at most 200 characters)'),
    image: MediaItemSchema.optional().describe('A picture (media item of type image) shown on the slide, turned upright from its EXIF orientation'),
    duration: z.number().min(1).max(30).default(4).describe('How long the slide is shown, in seconds (1–30)'),
    transition: z
      .enum(['cut', 'fade', 'crossfade'])
      .default('fade')
      .describe('How this slide gives way to the next one: cut, fade (through black) or crossfade; inside this slide\'s time, so durations add up exactly. Ignored on the last slide'),
  })
  .superRefine((slide, ctx) => {
    if (!slide.text && !slide.image) ctx.addIssue({ code: 'custom', path: ['text'], message: 'A slide needs text or an image' });
  });

export const SlidesParamsSchema = z
  .strictObject({
    template: z.enum(TEMPLATES.map((t) => t.id) as [TemplateId, ...TemplateId[]]).default('title').describe('The layout of every slide (see the listTemplates function)'),
    font: z.enum(FONTS.map((f) => f.id) as [FontId, ...FontId[]]).default('inter-bold').describe('The font of the slides\' text (see listFonts); captions are set in Inter Regular'),
    background: ColourSchema.default('#111827').describe('The background colour, #rrggbb (also the tint of the caption band)'),
    textColor: ColourSchema.default('#ffffff').describe('The colour of the text and captions, #rrggbb'),
    slides: z.array(SlideSchema).min(1).max(MAX_SLIDES).describe(`The slides in order (1–${MAX_SLIDES}; ${MAX_TOTAL_SECONDS} seconds in all at most)`),
    audio: z
      .strictObject({
        id: z.uuid().describe('The id of a media item of type audio of the organisation'),
        path: z.string().min(1).max(2048).optional().describe("The item's URL as the media library gives it (ignored: the id is what counts)"),
        volume: z.number().min(0).max(1).default(0.8).describe('Volume of the music, 0–1'),
      })
      .optional()
      .describe('Background music, looped or cut to the length of the video, faded out over the last second'),
  })
  .superRefine((p, ctx) => {
    const total = p.slides.reduce((sum, s) => sum + s.duration, 0);
    if (total > MAX_TOTAL_SECONDS) {
      ctx.addIssue({ code: 'custom', path: ['slides'], message: `The slides last ${total} seconds in all, more than the ${MAX_TOTAL_SECONDS} allowed` });
    }
  });

export type SlidesParams = z.infer<typeof SlidesParamsSchema>;
export type Slide = SlidesParams['slides'][number];

export const EmptyParamsSchema = z.strictObject({});

export const PreviewParamsSchema = z.strictObject({
  output: z.enum(VIDEO_OUTPUTS as [VideoOutput, ...VideoOutput[]]).default('vertical').describe('The format of the video the preview is for'),
  customParams: SlidesParamsSchema.describe('The customParams of the video; the first slide is drawn'),
});

import sharp, { type OverlayOptions } from 'sharp';
import { VideoProviderError } from '../provider.js';
import { fontFile, type FontId, type TemplateId } from './schemas.js';

/**
 * Draws one slide as an opaque RGB picture of the video's size with sharp: the picture fitted as
 * the template needs, text set by Pango (sharp's `text` input) with the shipped Inter files.
 * The same function makes the frames ffmpeg encodes and the `preview` PNG, so a preview is
 * exactly the first slide of the video.
 */

export interface SlideDrawing {
  template: TemplateId;
  font: FontId;
  background: string;
  textColor: string;
  text?: string | undefined;
  caption?: string | undefined;
  /** a local picture file, and the customParams field naming it (for errors) */
  picture?: { path: string; field: string } | undefined;
  /** the customParams path of the slide (`slides.0`), for errors */
  field: string;
}

interface Size {
  width: number;
  height: number;
}

interface Layer {
  data: Buffer;
  width: number;
  height: number;
}

/**
 * Pango markup is XML: the five special characters are escaped, and the control characters XML
 * forbids (Pango refuses the whole text on them) are dropped. Line breaks and tabs stay.
 */
export function escapeMarkup(text: string): string {
  let kept = '';
  for (const ch of text) {
    const c = ch.charCodeAt(0);
    if ((c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) || c === 0x7f) continue;
    kept += ch;
  }
  return kept
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/**
 * Sets `text` in a box at most `box.width` wide and `box.height` high, at `sizePx` when it fits
 * there; otherwise sharp's autofit (width and height given, no dpi) shrinks it into the box. The
 * result is only as large as the text (centred lines), transparent around the glyphs.
 */
async function drawText(text: string, fontId: FontId, sizePx: number, colour: string, box: Size, field: string): Promise<Layer | null> {
  if (!text) return null;
  const font = fontFile(fontId);
  const markup = `<span foreground="${colour}">${escapeMarkup(text)}</span>`;
  // word-char rather than word: a word longer than the line (a URL) is broken instead of overflowing.
  const base = { text: markup, fontfile: font.path, font: `${font.pango} ${sizePx}`, width: box.width, wrap: 'word-char' as const, align: 'centre' as const, rgba: true };
  try {
    let out = await sharp({ text: { ...base, dpi: 72 } }).raw().toBuffer({ resolveWithObject: true });
    if (out.info.width > box.width || out.info.height > box.height) {
      out = await sharp({ text: { ...base, height: box.height } }).raw().toBuffer({ resolveWithObject: true });
    }
    let layer: Layer = { data: out.data, width: out.info.width, height: out.info.height };
    if (layer.width > box.width || layer.height > box.height) {
      const fitted = await sharp(layer.data, { raw: { width: layer.width, height: layer.height, channels: 4 } })
        .resize(box.width, box.height, { fit: 'inside' })
        .raw()
        .toBuffer({ resolveWithObject: true });
      layer = { data: fitted.data, width: fitted.info.width, height: fitted.info.height };
    }
    return layer;
  } catch (e) {
    throw new VideoProviderError(`The text could not be set (${e instanceof Error ? e.message : String(e)})`, 'invalid_params', field);
  }
}

/** The picture turned upright (EXIF), scaled to `box` by `fit`: `cover` crops to fill, `inside` shows it whole. */
async function drawPicture(picture: { path: string; field: string }, box: Size, fit: 'cover' | 'inside'): Promise<Layer> {
  try {
    const out = await sharp(picture.path).autoOrient().resize(box.width, box.height, { fit }).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    return { data: out.data, width: out.info.width, height: out.info.height };
  } catch (e) {
    throw new VideoProviderError(`The picture could not be read (${e instanceof Error ? e.message : String(e)})`, 'invalid_params', picture.field);
  }
}

const overlay = (layer: Layer, left: number, top: number): OverlayOptions => ({
  input: layer.data,
  raw: { width: layer.width, height: layer.height, channels: 4 },
  left: Math.round(left),
  top: Math.round(top),
});

const solid = (width: number, height: number, colour: string, alpha: number, left: number, top: number): OverlayOptions => ({
  input: { create: { width, height, channels: 4, background: { ...hexToRgb(colour), alpha } } },
  left: Math.round(left),
  top: Math.round(top),
});

function hexToRgb(hex: string): { r: number; g: number; b: number } {
  const n = Number.parseInt(hex.slice(1), 16);
  return { r: (n >> 16) & 0xff, g: (n >> 8) & 0xff, b: n & 0xff };
}

/** Overlays placing `layers` one under the other from `top`, each centred across the frame. */
function stack(layers: (Layer | null)[], gap: number, frameWidth: number, top: number): OverlayOptions[] {
  const present = layers.filter((l): l is Layer => l !== null);
  const overlays: OverlayOptions[] = [];
  let y = top;
  for (const l of present) {
    overlays.push(overlay(l, (frameWidth - l.width) / 2, y));
    y += l.height + gap;
  }
  return overlays;
}

const stackHeight = (layers: (Layer | null)[], gap: number) => {
  const present = layers.filter((l): l is Layer => l !== null);
  return present.reduce((h, l) => h + l.height, 0) + gap * Math.max(0, present.length - 1);
};

/** Draws the slide; returns a PNG (RGB, no alpha) of exactly `size`. */
export async function renderSlide(d: SlideDrawing, size: Size, opts: { compressionLevel?: number } = {}): Promise<Buffer> {
  const { width: W, height: H } = size;
  const short = Math.min(W, H);
  const margin = Math.round(W * 0.08);
  const gap = Math.round(short * 0.03);
  const textWidth = W - 2 * margin;
  const textField = `${d.field}.text`;
  const captionField = `${d.field}.caption`;
  const layers: OverlayOptions[] = [];

  if (d.template === 'title') {
    if (d.picture) {
      layers.push(overlay(await drawPicture(d.picture, size, 'cover'), 0, 0));
      // dimmed so that light text stays readable on any picture
      layers.push(solid(W, H, '#000000', 0.45, 0, 0));
    }
    const caption = await drawText(d.caption ?? '', 'inter', Math.round(short * 0.045), d.textColor, { width: textWidth, height: Math.round(H * 0.25) }, captionField);
    const textBox = { width: textWidth, height: H - 2 * margin - (caption ? caption.height + gap : 0) };
    const text = await drawText(d.text ?? '', d.font, Math.round(short * 0.085), d.textColor, textBox, textField);
    const block = stackHeight([text, caption], gap);
    layers.push(...stack([text, caption], gap, W, (H - block) / 2));
  } else if (d.template === 'caption') {
    if (d.picture) layers.push(overlay(await drawPicture(d.picture, size, 'cover'), 0, 0));
    const pad = Math.round(short * 0.04);
    const maxContent = Math.round(H * 0.4) - 2 * pad;
    const caption = await drawText(d.caption ?? '', 'inter', Math.round(short * 0.045), d.textColor, { width: textWidth, height: Math.round(maxContent / 2) }, captionField);
    const text = await drawText(d.text ?? '', d.font, Math.round(short * 0.06), d.textColor, { width: textWidth, height: maxContent - (caption ? caption.height + gap : 0) }, textField);
    const content = stackHeight([text, caption], gap);
    if (content > 0) {
      // Kept clear of the bottom of a vertical frame, where short-video apps draw their own controls.
      const inset = H > W ? Math.round(H * 0.1) : 0;
      const bandHeight = content + 2 * pad;
      const bandTop = H - inset - bandHeight;
      layers.push(solid(W, bandHeight, d.background, 0.8, 0, bandTop));
      layers.push(...stack([text, caption], gap, W, bandTop + pad));
    }
  } else {
    const half = Math.round(H / 2);
    if (d.picture) {
      // whole (contain): half a frame is too little to crop a subject out of
      const pic = await drawPicture(d.picture, { width: W, height: half }, 'inside');
      layers.push(overlay(pic, (W - pic.width) / 2, (half - pic.height) / 2));
    }
    const caption = await drawText(d.caption ?? '', 'inter', Math.round(short * 0.045), d.textColor, { width: textWidth, height: Math.round((H - half) * 0.3) }, captionField);
    const textBox = { width: textWidth, height: H - half - 2 * margin - (caption ? caption.height + gap : 0) };
    const text = await drawText(d.text ?? '', d.font, Math.round(short * 0.075), d.textColor, textBox, textField);
    const block = stackHeight([text, caption], gap);
    layers.push(...stack([text, caption], gap, W, half + (H - half - block) / 2));
  }

  // Composite first, then drop the alpha in a second pipeline: in one pipeline sharp would remove
  // it before compositing, and the frames must be opaque.
  const composed = await sharp({ create: { width: W, height: H, channels: 4, background: { ...hexToRgb(d.background), alpha: 1 } } })
    .composite(layers)
    .raw()
    .toBuffer({ resolveWithObject: true });
  return sharp(composed.data, { raw: { width: W, height: H, channels: 4 } })
    .removeAlpha()
    .png({ compressionLevel: opts.compressionLevel ?? 6 })
    .toBuffer();
}

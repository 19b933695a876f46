import { ApiFailure } from '../../api/client.js';
import type { MediaItem, VideoProvider } from '../../api/queries.js';

/**
 * The slides form's model: what the person edits, the `customParams` it becomes (the built-in
 * provider's schema, `src/video/local/schemas.ts`), and the API's field errors placed back on it.
 */

export const TRANSITIONS = [
  { id: 'cut', label: 'Cut' },
  { id: 'fade', label: 'Fade through black' },
  { id: 'crossfade', label: 'Crossfade' },
] as const;
export type Transition = (typeof TRANSITIONS)[number]['id'];

export interface SlideDraft {
  /** React's key: slides move up and down */
  key: string;
  text: string;
  caption: string;
  image: MediaItem | null;
  /** seconds, as typed (the server says when it is out of range) */
  duration: string;
  transition: Transition;
}

export interface SlidesDraft {
  output: string;
  template: string;
  font: string;
  slides: SlideDraft[];
  audio: MediaItem | null;
}

/** What the form reads from the provider's JSON Schema (defaults and limits), with the built-in values when absent. */
export interface SlidesLimits {
  minDuration: number;
  maxDuration: number;
  defaultDuration: number;
  defaultTransition: Transition;
  maxSlides: number;
  defaultTemplate: string;
  defaultFont: string;
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});
const num = (v: unknown, fallback: number) => (typeof v === 'number' && Number.isFinite(v) ? v : fallback);
const str = (v: unknown, fallback: string) => (typeof v === 'string' ? v : fallback);

export function slidesLimits(provider: VideoProvider | undefined): SlidesLimits {
  const props = obj(obj(provider?.customParams).properties);
  const slides = obj(props.slides);
  const slide = obj(obj(slides.items).properties);
  const duration = obj(slide.duration);
  const transition = str(obj(slide.transition).default, 'fade');
  return {
    minDuration: num(duration.minimum, 1),
    maxDuration: num(duration.maximum, 30),
    defaultDuration: num(duration.default, 4),
    defaultTransition: TRANSITIONS.some((t) => t.id === transition) ? (transition as Transition) : 'fade',
    maxSlides: num(slides.maxItems, 30),
    defaultTemplate: str(obj(props.template).default, 'title'),
    defaultFont: str(obj(props.font).default, 'inter-bold'),
  };
}

let nextKey = 0;
export function newSlide(limits: Pick<SlidesLimits, 'defaultDuration' | 'defaultTransition'>): SlideDraft {
  nextKey += 1;
  return { key: `slide-${nextKey}`, text: '', caption: '', image: null, duration: String(limits.defaultDuration), transition: limits.defaultTransition };
}

/** Moves the slide at `index` by `by` places (−1 up, +1 down); out of range leaves the list as it is. */
export function moveSlide<T>(slides: readonly T[], index: number, by: -1 | 1): T[] {
  const to = index + by;
  if (index < 0 || index >= slides.length || to < 0 || to >= slides.length) return [...slides];
  const next = [...slides];
  [next[index], next[to]] = [next[to]!, next[index]!];
  return next;
}

/** The `customParams` of `POST /generate-video` for the slides provider. */
export function toCustomParams(draft: SlidesDraft) {
  return {
    template: draft.template,
    font: draft.font,
    slides: draft.slides.map((s) => ({
      ...(s.text.trim() ? { text: s.text } : {}),
      ...(s.caption.trim() ? { caption: s.caption } : {}),
      ...(s.image ? { image: { id: s.image.id, path: s.image.path } } : {}),
      // an empty box is sent as is (NaN is not JSON): the server names the field
      duration: s.duration.trim() === '' ? s.duration : Number(s.duration),
      transition: s.transition,
    })),
    ...(draft.audio ? { audio: { id: draft.audio.id, path: draft.audio.path } } : {}),
  };
}

/**
 * The API's field errors of a request, by path relative to the form: `POST /generate-video` names
 * `customParams.slides.0.duration`, the preview function `params.customParams.slides.0.duration`;
 * both become `customParams.slides.0.duration` (`output` stays `output`).
 */
export function fieldErrors(error: unknown): Map<string, string> {
  const out = new Map<string, string>();
  if (!(error instanceof ApiFailure)) return out;
  for (const f of error.body.fields ?? []) {
    const path = f.path.replace(/^params\./, '');
    if (!out.has(path)) out.set(path, f.message);
  }
  return out;
}

/**
 * The message for a field the form shows: its own path, or one below it for the pickers
 * (`customParams.slides.0.image.id` is shown at `customParams.slides.0.image`).
 */
export function errorAt(errors: Map<string, string>, path: string, below = false): string | undefined {
  if (errors.has(path)) return errors.get(path);
  if (!below) return undefined;
  for (const [p, m] of errors) if (p.startsWith(`${path}.`)) return m;
  return undefined;
}

/** The paths shown next to an input of the slides form (others go in the form's notice). */
export function shownPath(path: string): boolean {
  return (
    path === 'output' ||
    /^customParams\.(template|font|slides)$/.test(path) ||
    /^customParams\.audio(\.|$)/.test(path) ||
    /^customParams\.slides\.\d+\.(text|caption|duration|transition)$/.test(path) ||
    /^customParams\.slides\.\d+\.image(\.|$)/.test(path)
  );
}

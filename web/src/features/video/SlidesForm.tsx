import { useMutation, useQuery } from '@tanstack/react-query';
import { useMemo, useState, type FormEvent } from 'react';
import { api, ApiFailure, unwrap } from '../../api/client.js';
import { videoKeys, type GenerateVideoBody, type MediaItem, type VideoJob, type VideoProvider } from '../../api/queries.js';
import { Button, ErrorNotice, Field, Notice, TextInput } from '../../components/ui.js';
import { formatSeconds } from '../media/format.js';
import { MediaChooser } from './MediaChooser.js';
import { errorAt, fieldErrors, moveSlide, newSlide, shownPath, slidesLimits, toCustomParams, TRANSITIONS, type SlideDraft, type SlidesDraft } from './slides.js';

interface Template {
  id: string;
  name: string;
  description: string;
}
interface Font {
  id: string;
  family: string;
  weight: number;
}
interface PreviewImage {
  mimeType: string;
  width: number;
  height: number;
  data: string;
}

const OUTPUT_LABEL: Record<string, string> = { vertical: 'Vertical', horizontal: 'Horizontal' };

/** Calls a function of a provider (POST /video/function) and answers what it returns. */
export async function callVideoFunction<T>(identifier: string, functionName: string, params: unknown): Promise<T> {
  return (await unwrap(api.POST('/video/function', { body: { identifier, functionName, params } }))) as T;
}

/** `POST /generate-video` answered at once with the job (`Prefer: respond-async`): the page follows it in the jobs list. */
export async function generateVideo(body: { type: string; output: string; customParams: Record<string, unknown> }): Promise<VideoJob | undefined> {
  // the output is one the provider listed; the server names it if not
  const result = await api.POST('/generate-video', { body: body as GenerateVideoBody, headers: { prefer: 'respond-async' } });
  const data = await unwrap(Promise.resolve(result));
  // 202: the job; a 201 (the video already made) has no job to show: the list is read again
  return result.response.status === 202 ? (data as VideoJob) : undefined;
}

function SlideEditor({
  slide,
  index,
  count,
  last,
  limits,
  errors,
  onChange,
  onMove,
  onRemove,
  onChoosePicture,
}: {
  slide: SlideDraft;
  index: number;
  count: number;
  last: boolean;
  limits: ReturnType<typeof slidesLimits>;
  errors: Map<string, string>;
  onChange: (patch: Partial<SlideDraft>) => void;
  onMove: (by: -1 | 1) => void;
  onRemove: () => void;
  onChoosePicture: () => void;
}) {
  const n = index + 1;
  const at = (field: string, below = false) => errorAt(errors, `customParams.slides.${index}.${field}`, below);
  const pictureError = at('image', true);
  return (
    <li className="video-slide">
      <fieldset>
        <legend>Slide {n}</legend>
        <div className="video-slide-tools">
          <Button variant="ghost" className="btn-small" aria-label={`Move slide ${n} up`} disabled={index === 0} onClick={() => onMove(-1)}>
            ↑
          </Button>
          <Button variant="ghost" className="btn-small" aria-label={`Move slide ${n} down`} disabled={index === count - 1} onClick={() => onMove(1)}>
            ↓
          </Button>
          <Button variant="ghost" className="btn-small" aria-label={`Remove slide ${n}`} disabled={count === 1} onClick={onRemove}>
            Remove
          </Button>
        </div>
        <div className="video-slide-body">
          <div className="video-slide-words">
            <Field label="Text" error={at('text')}>
              {(p) => <textarea {...p} rows={2} maxLength={300} value={slide.text} onChange={(e) => onChange({ text: e.target.value })} />}
            </Field>
            <Field label="Caption" error={at('caption')}>
              {(p) => <TextInput {...p} maxLength={200} value={slide.caption} onChange={(e) => onChange({ caption: e.target.value })} />}
            </Field>
          </div>
          <div className="video-slide-picture field">
            <span className="video-label">
              Picture
            </span>
            {slide.image ? (
              <div className="video-picked">
                <img src={slide.image.thumbnail ?? slide.image.path} alt={`Picture of slide ${n}`} />
                <Button variant="ghost" className="btn-small" aria-label={`Remove the picture of slide ${n}`} onClick={() => onChange({ image: null })}>
                  Remove
                </Button>
              </div>
            ) : null}
            <Button variant="secondary" className="btn-small" aria-label={`Choose a picture for slide ${n}`} onClick={onChoosePicture}>
              {slide.image ? 'Change…' : 'Choose…'}
            </Button>
            {pictureError ? (
              <p className="error" role="alert">
                {pictureError}
              </p>
            ) : null}
          </div>
          <div className="video-slide-timing">
            <Field label="Duration (s)" error={at('duration')}>
              {(p) => (
                <TextInput {...p} type="number" inputMode="decimal" min={limits.minDuration} max={limits.maxDuration} step={0.5} value={slide.duration} onChange={(e) => onChange({ duration: e.target.value })} />
              )}
            </Field>
            <Field label="Transition" hint={last ? 'Not used on the last slide' : undefined} error={at('transition')}>
              {(p) => (
                <select {...p} value={slide.transition} onChange={(e) => onChange({ transition: e.target.value as SlideDraft['transition'] })}>
                  {TRANSITIONS.map((t) => (
                    <option key={t.id} value={t.id}>
                      {t.label}
                    </option>
                  ))}
                </select>
              )}
            </Field>
          </div>
        </div>
      </fieldset>
    </li>
  );
}

/**
 * The built-in `slides` provider's form: output, template, font, the slides (text, caption,
 * picture from the library, duration, transition; added, removed, moved), background music;
 * a preview of the first slide; Generate queues the job (it shows in the jobs list).
 */
export function SlidesForm({ provider, onQueued }: { provider: VideoProvider; onQueued: (job: VideoJob | undefined) => void }) {
  const limits = useMemo(() => slidesLimits(provider), [provider]);
  const [draft, setDraft] = useState<SlidesDraft>(() => ({
    output: provider.outputs[0]?.output ?? 'vertical',
    template: limits.defaultTemplate,
    font: limits.defaultFont,
    slides: [newSlide(limits)],
    audio: null,
  }));
  const [choosing, setChoosing] = useState<{ type: 'image'; slide: string } | { type: 'audio' } | null>(null);
  const [lastError, setLastError] = useState<unknown>(null);
  const [queued, setQueued] = useState(false);

  const templates = useQuery({
    queryKey: videoKeys.fn(provider.identifier, 'listTemplates'),
    queryFn: async () => (await callVideoFunction<{ templates: Template[] }>(provider.identifier, 'listTemplates', {})).templates,
    staleTime: Infinity,
  });
  const fonts = useQuery({
    queryKey: videoKeys.fn(provider.identifier, 'listFonts'),
    queryFn: async () => (await callVideoFunction<{ fonts: Font[] }>(provider.identifier, 'listFonts', {})).fonts,
    staleTime: Infinity,
  });

  const preview = useMutation({
    mutationFn: () => callVideoFunction<PreviewImage>(provider.identifier, 'preview', { output: draft.output, customParams: toCustomParams(draft) }),
    onMutate: () => setLastError(null),
    onError: setLastError,
  });
  const generate = useMutation({
    mutationFn: () => generateVideo({ type: provider.identifier, output: draft.output, customParams: toCustomParams(draft) }),
    onMutate: () => {
      setLastError(null);
      setQueued(false);
    },
    onError: setLastError,
    onSuccess: (job) => {
      setQueued(true);
      onQueued(job);
    },
  });

  const errors = fieldErrors(lastError);
  const unshown = lastError instanceof ApiFailure && lastError.body.fields?.length ? lastError.body.fields.filter((f) => !shownPath(f.path.replace(/^params\./, ''))) : [];
  const showNotice = lastError && (!(lastError instanceof ApiFailure) || !lastError.body.fields?.length || unshown.length > 0);
  // the frame follows the picture drawn (the output may have been switched since)
  const previewShape = preview.data ? (preview.data.width > preview.data.height ? 'horizontal' : 'vertical') : draft.output;
  const total = draft.slides.reduce((sum, s) => sum + (Number(s.duration) || 0), 0);
  const template = templates.data?.find((t) => t.id === draft.template);

  const update = (patch: Partial<SlidesDraft>) => setDraft((d) => ({ ...d, ...patch }));
  const updateSlide = (key: string, patch: Partial<SlideDraft>) => setDraft((d) => ({ ...d, slides: d.slides.map((s) => (s.key === key ? { ...s, ...patch } : s)) }));

  function picked(item: MediaItem) {
    if (choosing?.type === 'image') updateSlide(choosing.slide, { image: item });
    else update({ audio: item });
  }

  function submit(e: FormEvent) {
    e.preventDefault();
    generate.mutate();
  }

  return (
    <form className="video-form card" onSubmit={submit} aria-label="Slides video" noValidate>
      <h2>Slides video</h2>
      <p className="hint">{provider.description}</p>

      <div className="video-form-body">
        <div className="video-form-main">
          <div className="video-settings">
            <fieldset className="video-outputs" aria-describedby={errorAt(errors, 'output') ? 'video-output-error' : undefined}>
              <legend>Output</legend>
              {provider.outputs.map((o) => (
                <label key={o.output} className="video-radio">
                  <input type="radio" name="output" value={o.output} checked={draft.output === o.output} onChange={() => update({ output: o.output })} />
                  {OUTPUT_LABEL[o.output] ?? o.output}{' '}
                  <span className="hint">
                    {o.width}×{o.height}
                  </span>
                </label>
              ))}
              {errorAt(errors, 'output') ? (
                <p className="error" id="video-output-error" role="alert">
                  {errorAt(errors, 'output')}
                </p>
              ) : null}
            </fieldset>
            <Field label="Template" hint={template?.description} error={errorAt(errors, 'customParams.template')}>
              {(p) => (
                <select {...p} value={draft.template} onChange={(e) => update({ template: e.target.value })} disabled={!templates.data}>
                  {(templates.data ?? [{ id: draft.template, name: draft.template, description: '' }]).map((t) => (
                    <option key={t.id} value={t.id}>
                      {t.name}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            <Field label="Font" error={errorAt(errors, 'customParams.font')}>
              {(p) => (
                <select {...p} value={draft.font} onChange={(e) => update({ font: e.target.value })} disabled={!fonts.data}>
                  {(fonts.data ?? [{ id: draft.font, family: draft.font, weight: 0 }]).map((f) => (
                    <option key={f.id} value={f.id}>
                      {f.weight ? `${f.family} ${f.weight}` : f.family}
                    </option>
                  ))}
                </select>
              )}
            </Field>
          </div>
          <ErrorNotice error={templates.error ?? fonts.error} />

          <h3 className="video-slides-title">
            Slides <span className="hint">{`${draft.slides.length} · ${formatSeconds(total)} in all`}</span>
          </h3>
          <ol className="video-slides">
            {draft.slides.map((s, i) => (
              <SlideEditor
                key={s.key}
                slide={s}
                index={i}
                count={draft.slides.length}
                last={i === draft.slides.length - 1}
                limits={limits}
                errors={errors}
                onChange={(patch) => updateSlide(s.key, patch)}
                onMove={(by) => setDraft((d) => ({ ...d, slides: moveSlide(d.slides, i, by) }))}
                onRemove={() => setDraft((d) => ({ ...d, slides: d.slides.filter((x) => x.key !== s.key) }))}
                onChoosePicture={() => setChoosing({ type: 'image', slide: s.key })}
              />
            ))}
          </ol>
          {errorAt(errors, 'customParams.slides') ? (
            <p className="error" role="alert">
              {errorAt(errors, 'customParams.slides')}
            </p>
          ) : null}
          <Button variant="secondary" disabled={draft.slides.length >= limits.maxSlides} onClick={() => setDraft((d) => ({ ...d, slides: [...d.slides, newSlide(limits)] }))}>
            + Add slide
          </Button>

          <div className="video-music field">
            <span className="video-label">
              Background music <span className="hint">(optional: looped or cut to the video, faded out at the end)</span>
            </span>
            {draft.audio ? (
              <div className="video-picked">
                <span className="video-picked-name">♪ {draft.audio.originalName ?? draft.audio.name}</span>
                <audio controls preload="none" src={draft.audio.path} aria-label={`Listen to ${draft.audio.originalName ?? draft.audio.name}`} />
                <Button variant="ghost" className="btn-small" aria-label="Remove the music" onClick={() => update({ audio: null })}>
                  Remove
                </Button>
              </div>
            ) : null}
            <Button variant="secondary" className="btn-small" onClick={() => setChoosing({ type: 'audio' })}>
              {draft.audio ? 'Change music…' : 'Choose music…'}
            </Button>
            {errorAt(errors, 'customParams.audio', true) ? (
              <p className="error" role="alert">
                {errorAt(errors, 'customParams.audio', true)}
              </p>
            ) : null}
          </div>

          {showNotice ? (
            <Notice kind="bad">
              {lastError instanceof ApiFailure ? lastError.body.message : lastError instanceof Error ? lastError.message : 'Something went wrong.'}
              {unshown.length > 0 ? (
                <ul>
                  {unshown.map((f) => (
                    <li key={f.path}>
                      <code>{f.path}</code>: {f.message}
                    </li>
                  ))}
                </ul>
              ) : null}
            </Notice>
          ) : null}
          {queued && !generate.isPending ? <Notice kind="ok">The video is being made: follow it in the list below.</Notice> : null}

          <div className="video-actions">
            <Button variant="secondary" disabled={preview.isPending} onClick={() => preview.mutate()}>
              {preview.isPending ? 'Drawing…' : 'Preview first slide'}
            </Button>
            <Button type="submit" disabled={generate.isPending}>
              {generate.isPending ? 'Sending…' : `Generate video (${provider.creditCost} ${provider.creditCost === 1 ? 'credit' : 'credits'})`}
            </Button>
          </div>
        </div>
        <aside className={`video-preview video-preview-${previewShape}`} aria-label="Preview">
          {preview.data ? (
            <figure>
              <img src={`data:${preview.data.mimeType};base64,${preview.data.data}`} width={preview.data.width} height={preview.data.height} alt="Preview of the first slide" />
              <figcaption className="hint">
                The first slide as the video shows it ({preview.data.width}×{preview.data.height}).
              </figcaption>
            </figure>
          ) : (
            <div className="video-preview-empty">
              <p className="hint">“Preview first slide” draws it here, exactly as the video will show it.</p>
            </div>
          )}
        </aside>
      </div>

      <MediaChooser open={choosing !== null} onOpenChange={(o) => !o && setChoosing(null)} type={choosing?.type ?? 'image'} onPick={picked} />
    </form>
  );
}

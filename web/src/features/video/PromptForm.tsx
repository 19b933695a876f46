import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ApiFailure } from '../../api/client.js';
import type { VideoJob, VideoProvider } from '../../api/queries.js';
import { Button, Field, Notice } from '../../components/ui.js';
import { generateVideo } from './SlidesForm.js';
import { errorAt, fieldErrors } from './slides.js';

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});

/** The string choices of a provider's customParams (JSON Schema `enum` of strings), e.g. veo3's `model`. */
function choicesOf(provider: VideoProvider): { name: string; values: string[]; default?: string; description?: string }[] {
  const props = obj(obj(provider.customParams).properties);
  return Object.entries(props).flatMap(([name, raw]) => {
    const s = obj(raw);
    const values = Array.isArray(s.enum) ? s.enum.filter((v): v is string => typeof v === 'string') : [];
    if (values.length === 0) return [];
    return [{ name, values, ...(typeof s.default === 'string' ? { default: s.default } : {}), ...(typeof s.description === 'string' ? { description: s.description } : {}) }];
  });
}

/** Whether a provider takes a `prompt` (an outside AI provider such as veo3): those get this form. */
export function hasPrompt(provider: VideoProvider): boolean {
  return obj(obj(obj(provider.customParams).properties).prompt).type === 'string';
}

/**
 * A form for a provider made from its prompt: the prompt, the output and its string choices
 * (veo3's model). What the schema holds beyond that (pictures) is left to the API.
 */
export function PromptForm({ provider, onQueued }: { provider: VideoProvider; onQueued: (job: VideoJob | undefined) => void }) {
  const choices = choicesOf(provider);
  const promptSchema = obj(obj(obj(provider.customParams).properties).prompt);
  const [prompt, setPrompt] = useState('');
  const [output, setOutput] = useState(provider.outputs[0]?.output ?? 'vertical');
  const [picked, setPicked] = useState<Record<string, string>>(() => Object.fromEntries(choices.map((c) => [c.name, c.default ?? c.values[0]!])));
  const generate = useMutation({
    mutationFn: () => generateVideo({ type: provider.identifier, output, customParams: { prompt, ...picked } }),
    onSuccess: onQueued,
  });
  const errors = fieldErrors(generate.error);
  const shown = ['output', 'customParams.prompt', ...choices.map((c) => `customParams.${c.name}`)];
  const other = generate.error && (!(generate.error instanceof ApiFailure) || !generate.error.body.fields?.every((f) => shown.includes(f.path)));

  function submit(e: FormEvent) {
    e.preventDefault();
    generate.mutate();
  }

  return (
    <form className="video-form card" onSubmit={submit} aria-label={provider.name} noValidate>
      <h2>{provider.name}</h2>
      <p className="hint">{provider.description}</p>
      <Field label="Prompt" hint={typeof promptSchema.description === 'string' ? promptSchema.description : undefined} error={errorAt(errors, 'customParams.prompt')}>
        {(p) => <textarea {...p} rows={3} maxLength={typeof promptSchema.maxLength === 'number' ? promptSchema.maxLength : undefined} value={prompt} onChange={(e) => setPrompt(e.target.value)} />}
      </Field>
      <div className="video-settings">
        <Field label="Output" error={errorAt(errors, 'output')}>
          {(p) => (
            <select {...p} value={output} onChange={(e) => setOutput(e.target.value)}>
              {provider.outputs.map((o) => (
                <option key={o.output} value={o.output}>
                  {o.output} ({o.width}×{o.height})
                </option>
              ))}
            </select>
          )}
        </Field>
        {choices.map((c) => (
          <Field key={c.name} label={c.name} hint={c.description} error={errorAt(errors, `customParams.${c.name}`)}>
            {(p) => (
              <select {...p} value={picked[c.name]} onChange={(e) => setPicked((prev) => ({ ...prev, [c.name]: e.target.value }))}>
                {c.values.map((v) => (
                  <option key={v} value={v}>
                    {v}
                  </option>
                ))}
              </select>
            )}
          </Field>
        ))}
      </div>
      {other ? <Notice kind="bad">{generate.error instanceof Error ? generate.error.message : 'Something went wrong.'}</Notice> : null}
      {generate.isSuccess ? <Notice kind="ok">The video is being made: follow it in the list below.</Notice> : null}
      <div className="video-actions">
        <Button type="submit" disabled={generate.isPending}>
          {generate.isPending ? 'Sending…' : `Generate video (${provider.creditCost} ${provider.creditCost === 1 ? 'credit' : 'credits'})`}
        </Button>
      </div>
    </form>
  );
}
